import Crypto
import Foundation
import RichPushCore
import Testing

@testable import RichPushHubs

@Suite("Web Push message encryption")
struct WebPushEncryptionTests {
    func bytes(_ base64URL: String) throws -> Data { try #require(Data(base64URLEncoded: base64URL)) }

    /// RFC 8291, Appendix A: the sender's key pair and salt fixed, the encrypted body is known byte for byte.
    @Test func theBodyMatchesRFC8291sExample() throws {
        let recipient = WebPushEncryption.Recipient(
            publicKey: try P256.KeyAgreement.PublicKey(
                x963Representation: bytes("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")),
            authSecret: try bytes("BTBZMqHH6r4Tts7J_aSIgg"))
        let body = try WebPushEncryption.encrypt(
            Data("When I grow up, I want to be a watermelon".utf8), for: recipient,
            senderKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")),
            salt: try bytes("DGv6ra1nlYgDCS1FRnbzlw"))
        #expect(
            body.base64URLEncodedString()
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A"
                + "_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    }

    @Test func everyMessageHasItsOwnSaltAndKey() throws {
        let recipient = WebPushEncryption.Recipient(publicKey: P256.KeyAgreement.PrivateKey().publicKey, authSecret: Data(count: 16))
        let first = try WebPushEncryption.encrypt(Data("same".utf8), for: recipient)
        let second = try WebPushEncryption.encrypt(Data("same".utf8), for: recipient)
        #expect(first.prefix(16) != second.prefix(16))
        #expect(first.dropFirst(21).prefix(65) != second.dropFirst(21).prefix(65))
    }

    @Test func aPlaintextBeyondOneRecordIsRefused() {
        let recipient = WebPushEncryption.Recipient(publicKey: P256.KeyAgreement.PrivateKey().publicKey, authSecret: Data(count: 16))
        #expect(throws: WebPushEncryption.TooLarge.self) { try WebPushEncryption.encrypt(Data(count: 4080), for: recipient) }
    }

    @Test func theVAPIDAudienceIsTheEndpointsOrigin() throws {
        #expect(VAPIDSigner.origin(of: try #require(URL(string: "https://fcm.googleapis.com/fcm/send/abc"))) == "https://fcm.googleapis.com")
        #expect(VAPIDSigner.origin(of: try #require(URL(string: "https://127.0.0.1:8443/push/1"))) == "https://127.0.0.1:8443")
    }
}
