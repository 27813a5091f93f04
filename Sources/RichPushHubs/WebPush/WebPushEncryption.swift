import Crypto
import Foundation

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC 8188), with swift-crypto's
/// P-256 ECDH, HKDF and AES-GCM: a fresh key pair and salt per message, one record, no padding.
enum WebPushEncryption {
    /// What a subscription gives the sender: the browser's P-256 public key and its 16-byte authentication secret.
    struct Recipient: Sendable, Equatable {
        var publicKey: P256.KeyAgreement.PublicKey
        var authSecret: Data

        static func == (lhs: Recipient, rhs: Recipient) -> Bool {
            lhs.publicKey.x963Representation == rhs.publicKey.x963Representation && lhs.authSecret == rhs.authSecret
        }
    }

    /// RFC 8188's default record size; one record holds any push a service accepts (4096 bytes in all).
    static let recordSize = 4096
    /// The most plaintext one record carries: the record less its tag and the delimiter.
    static let maximumPlaintext = recordSize - 16 - 1

    struct TooLarge: Error {}

    /// The encrypted body: salt, record size, the sender's public key, then the record.
    static func encrypt(
        _ plaintext: Data, for recipient: Recipient, senderKey: P256.KeyAgreement.PrivateKey = .init(),
        salt: Data = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    ) throws -> Data {
        guard plaintext.count <= maximumPlaintext else { throw TooLarge() }
        let senderPublic = senderKey.publicKey.x963Representation
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: recipient.publicKey)
        let keyInfo = Data("WebPush: info".utf8) + [0] + recipient.publicKey.x963Representation + senderPublic
        let inputKey = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: recipient.authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        // A single record is the last one: its delimiter is 2.
        let sealed = try AES.GCM.seal(
            plaintext + [2], using: contentKey, nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var body = salt
        withUnsafeBytes(of: UInt32(recordSize).bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublic.count))
        body.append(senderPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }
}
