import Crypto
import Foundation
import JWTKit
import RichPushCore

/// Voluntary application server identification (RFC 8292): an ES256 JWT naming the push service's origin (`aud`),
/// an expiry at most 24 hours ahead and a contact (`sub`), sent with the public key as `Authorization: vapid t=…, k=…`.
/// A token is reused per origin until an hour before it expires.
actor VAPIDSigner {
    struct Claims: JWTPayload {
        var aud: String
        var exp: Int
        var sub: String

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// Push services refuse an `exp` more than 24 hours ahead; 12 leaves room for clock skew.
    static let lifetime: TimeInterval = 12 * 3600
    static let renewalMargin: TimeInterval = 3600

    /// The uncompressed public key, base64url: `k=` here, and what browsers subscribe with as `applicationServerKey`.
    let publicKey: String
    private let subject: String
    private let keys = JWTKeyCollection()
    private var tokens: [String: (token: String, expiresAt: Date)] = [:]

    init(privateKeyPEM: String, subject: String) async throws(HubConfigurationError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw HubConfigurationError(
                "\(ServeHubSettings.vapidKeyFile.name): not a PEM P-256 private key (openssl ecparam -name prime256v1 -genkey -noout)")
        }
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https:") else {
            throw HubConfigurationError("\(ServeHubSettings.vapidSubject.name): '\(subject)' is neither a mailto: nor an https: URL")
        }
        self.subject = subject
        publicKey = key.publicKey.x963Representation.base64URLEncodedString()
        do {
            await keys.add(ecdsa: try ES256PrivateKey(pem: privateKeyPEM))
        } catch {
            throw HubConfigurationError("\(ServeHubSettings.vapidKeyFile.name): \(error)")
        }
    }

    /// The `Authorization` header for a push to `endpoint`'s push service.
    func authorization(for endpoint: URL, now: Date = .now) async throws -> String {
        let audience = Self.origin(of: endpoint)
        if let current = tokens[audience], current.expiresAt.timeIntervalSince(now) > Self.renewalMargin {
            return "vapid t=\(current.token), k=\(publicKey)"
        }
        let expiresAt = now + Self.lifetime
        let token = try await keys.sign(Claims(aud: audience, exp: Int(expiresAt.timeIntervalSince1970), sub: subject))
        tokens[audience] = (token, expiresAt)
        return "vapid t=\(token), k=\(publicKey)"
    }

    /// `https://push.example.net` of `https://push.example.net:443/send/abc`, with a port only when it is not 443.
    static func origin(of endpoint: URL) -> String {
        let host = endpoint.host ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        guard let port = endpoint.port, port != 443 else { return "https://\(bracketed)" }
        return "https://\(bracketed):\(port)"
    }
}
