import Crypto
import Foundation

/// Signs webhook messages the Standard Webhooks way: `webhook-signature: v1,<base64 HMAC-SHA256>` of
/// `"<webhook-id>.<webhook-timestamp>.<body>"`, keyed with the secret's bytes, the base64 after `whsec_`.
struct WebhookSigner: Sendable {
    static let prefix = "whsec_"
    private let key: SymmetricKey

    /// The signer of `secret`; nil when it is not `whsec_` and the base64 of 24 to 64 bytes, as Standard Webhooks
    /// libraries read it.
    init?(secret: String) {
        guard secret.hasPrefix(Self.prefix), let bytes = Data(base64Encoded: String(secret.dropFirst(Self.prefix.count))),
            (24...64).contains(bytes.count)
        else { return nil }
        key = SymmetricKey(data: bytes)
    }

    /// A new secret: 32 random bytes.
    static func makeSecret() -> String {
        prefix + Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString()
    }

    func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        var signed = Array("\(id).\(timestamp).".utf8)
        signed += body
        return "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: key)).base64EncodedString()
    }
}
