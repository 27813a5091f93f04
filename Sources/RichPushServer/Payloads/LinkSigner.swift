import Crypto
import Foundation
import RichPushCore

/// Signs short-lived payload links (`/api/notifications/42?exp=…&sig=…`) for fetchers that cannot send headers.
///
/// The signature is HMAC-SHA256 over the id and the expiry with a key shared by every process through the store.
struct LinkSigner: Sendable {
    let key: SymmetricKey
    /// How long a link works.
    let lifetime: TimeInterval

    init(secret: String, lifetime: TimeInterval = 900) {
        self.key = SymmetricKey(data: Data(secret.utf8))
        self.lifetime = lifetime
    }

    /// The relative payload URL of notification `id`, valid until `now + lifetime`.
    func payloadURL(id: Int64, now: Date = .now) -> String {
        payloadURL(id: id, until: now + lifetime)
    }

    /// The relative payload URL of notification `id`, valid until `expiry`; one that names `installationId` is that
    /// device's own, and a fetch through it counts as the device's.
    func payloadURL(id: Int64, until expiry: Date, installationId: String? = nil) -> String {
        let expiry = Int64(expiry.timeIntervalSince1970)
        let device = installationId.map { "&installationId=\($0)" } ?? ""
        return "/api/notifications/\(id)?exp=\(expiry)\(device)&sig=\(signature(id: id, expiry: expiry, installationId: installationId))"
    }

    /// Whether `signature` signs `id` (for `installationId`, when the link names one) until `expiry` and that moment
    /// has not passed.
    func isValid(id: Int64, expiry: Int64, installationId: String? = nil, signature: String, now: Date = .now) -> Bool {
        guard Double(expiry) > now.timeIntervalSince1970, let mac = Data(base64URLEncoded: signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: Self.message(id: id, expiry: expiry, installationId: installationId), using: key)
    }

    private func signature(id: Int64, expiry: Int64, installationId: String?) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Self.message(id: id, expiry: expiry, installationId: installationId), using: key)
        return Data(mac).base64URLEncodedString()
    }

    /// A device's link signs its installation id after the rest; installation ids hold no `:`, so no link of one
    /// device reads as another's.
    private static func message(id: Int64, expiry: Int64, installationId: String?) -> Data {
        Data("richpush-payload:\(id):\(expiry)\(installationId.map { ":" + $0 } ?? "")".utf8)
    }

    /// 256 random bits in base64url: a new secret for the store, or an API token's.
    static func makeSecret() -> String {
        Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }).base64URLEncodedString()
    }
}
