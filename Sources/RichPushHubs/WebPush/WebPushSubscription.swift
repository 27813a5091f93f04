import Crypto
public import Foundation
import RichPushCore

/// A browser's `PushSubscription` as a `webpush` installation's push channel: the push service's endpoint, the
/// browser's P-256 key and its authentication secret.
public struct WebPushSubscription: Sendable {
    public let endpoint: URL
    let recipient: WebPushEncryption.Recipient
    private let endpointText: String

    /// The subscription as the store keeps it: JSON with sorted keys, so one subscription is always one text. Made
    /// when asked (at registration), not by each push.
    public var channel: String {
        let canonical: [String: Any] = [
            "endpoint": endpointText,
            "keys": [
                "p256dh": recipient.publicKey.x963Representation.base64URLEncodedString(), "auth": recipient.authSecret.base64URLEncodedString(),
            ],
        ]
        return String(
            decoding: try! JSONSerialization.data(withJSONObject: canonical, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    /// Why a push channel is not a usable subscription, as a sentence.
    public struct Problem: Error, Sendable {
        public let reason: String
    }

    /// Reads `{"endpoint", "keys": {"p256dh", "auth"}}` (other members, such as `expirationTime`, are ignored). An
    /// endpoint spelling a loopback, private or link-local address is refused as `policy` has it: the gateway would
    /// otherwise post to machines inside its own network on a member's behalf. A name is judged where it is resolved.
    public init(channel text: String, policy: OutboundAddressPolicy) throws(Problem) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
            let endpointText = object["endpoint"] as? String, let keys = object["keys"] as? [String: Any],
            let p256dh = keys["p256dh"] as? String, let auth = keys["auth"] as? String
        else { throw Problem(reason: "A Web Push pushChannel is the browser's PushSubscription: {\"endpoint\", \"keys\": {\"p256dh\", \"auth\"}}.") }
        guard let endpoint = URL(string: endpointText), endpoint.scheme?.lowercased() == "https", let host = endpoint.host, !host.isEmpty,
            endpoint.user == nil, endpoint.password == nil
        else { throw Problem(reason: "The subscription's endpoint must be an https URL.") }
        do throws(OutboundAddressPolicy.Refusal) {
            try policy.checkLiteral(host)
        } catch {
            throw Problem(reason: "The subscription's endpoint is on a loopback, private or link-local address: \(error.reason)")
        }
        guard let point = Data(base64URLEncoded: p256dh), point.count == 65,
            let publicKey = try? P256.KeyAgreement.PublicKey(x963Representation: point)
        else { throw Problem(reason: "keys.p256dh must be a P-256 public key: 65 bytes in base64url, a point on the curve.") }
        guard let secret = Data(base64URLEncoded: auth), secret.count == 16 else {
            throw Problem(reason: "keys.auth must be the 16-byte authentication secret in base64url.")
        }
        self.endpoint = endpoint
        self.endpointText = endpointText
        recipient = WebPushEncryption.Recipient(publicKey: publicKey, authSecret: secret)
    }

    /// The host of the endpoint `channel` names, read without judging the rest of the subscription: what a push's
    /// circuit is keyed by, asked of every push before it goes.
    static func endpointHost(of channel: String) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(channel.utf8))) as? [String: Any],
            let endpoint = object["endpoint"] as? String
        else { return nil }
        return URL(string: endpoint)?.host
    }
}
