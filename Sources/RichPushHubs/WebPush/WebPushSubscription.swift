import Crypto
public import Foundation
import RichPushCore

/// A browser's `PushSubscription` as a `webpush` installation's push channel: the push service's endpoint, the
/// browser's P-256 key and its authentication secret.
public struct WebPushSubscription: Sendable {
    public let endpoint: URL
    let recipient: WebPushEncryption.Recipient
    /// The subscription as the store keeps it: JSON with sorted keys, so one subscription is always one text.
    public let channel: String

    /// Why a push channel is not a usable subscription, as a sentence.
    public struct Problem: Error, Sendable {
        public let reason: String
    }

    /// Reads `{"endpoint", "keys": {"p256dh", "auth"}}` (other members, such as `expirationTime`, are ignored). An
    /// endpoint on a loopback, private or link-local address is refused unless `allowingPrivateAddresses`: the
    /// gateway would otherwise post to machines inside its own network on a member's behalf.
    public init(channel text: String, allowingPrivateAddresses: Bool) throws(Problem) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
            let endpointText = object["endpoint"] as? String, let keys = object["keys"] as? [String: Any],
            let p256dh = keys["p256dh"] as? String, let auth = keys["auth"] as? String
        else { throw Problem(reason: "A Web Push pushChannel is the browser's PushSubscription: {\"endpoint\", \"keys\": {\"p256dh\", \"auth\"}}.") }
        guard let endpoint = URL(string: endpointText), endpoint.scheme?.lowercased() == "https", let host = endpoint.host, !host.isEmpty,
            endpoint.user == nil, endpoint.password == nil
        else { throw Problem(reason: "The subscription's endpoint must be an https URL.") }
        if !allowingPrivateAddresses, Self.isPrivate(host: host) {
            throw Problem(reason: "The subscription's endpoint is on a loopback, private or link-local address.")
        }
        guard let point = Data(base64URLEncoded: p256dh), point.count == 65,
            let publicKey = try? P256.KeyAgreement.PublicKey(x963Representation: point)
        else { throw Problem(reason: "keys.p256dh must be a P-256 public key: 65 bytes in base64url, a point on the curve.") }
        guard let secret = Data(base64URLEncoded: auth), secret.count == 16 else {
            throw Problem(reason: "keys.auth must be the 16-byte authentication secret in base64url.")
        }
        self.endpoint = endpoint
        recipient = WebPushEncryption.Recipient(publicKey: publicKey, authSecret: secret)
        let canonical: [String: Any] = [
            "endpoint": endpointText, "keys": ["p256dh": point.base64URLEncodedString(), "auth": secret.base64URLEncodedString()],
        ]
        channel = String(
            decoding: try! JSONSerialization.data(withJSONObject: canonical, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    /// Loopback, private (RFC 1918, RFC 6598, unique local), link-local and unspecified addresses, and `localhost`.
    /// Names are not resolved here: a name that resolves to such an address is the push service's DNS to answer for.
    static func isPrivate(host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        if octets.count == 4, name.split(separator: ".").count == 4 {
            switch (octets[0], octets[1]) {
            case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
            case (172, let second): return (16...31).contains(second)
            case (100, let second): return (64...127).contains(second)
            default: return false
            }
        }
        guard name.contains(":") else { return false }
        if name == "::1" || name == "::" { return true }
        if let mapped = name.split(separator: ":").last, mapped.contains("."), name.hasPrefix("::ffff:") { return isPrivate(host: String(mapped)) }
        let first = name.split(separator: ":").first.flatMap { UInt16($0, radix: 16) } ?? 0
        return first & 0xFE00 == 0xFC00 || first & 0xFFC0 == 0xFE80
    }
}
