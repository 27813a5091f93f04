import Foundation
import JWTKit
import RichPushCore

/// The provider token of APNs token auth: an ES256 JWT with the key id (`kid`) and the team id (`iss`), signed with
/// the `.p8` key.
///
/// Apple asks providers to reuse a token, to mint a new one no more often than every 20 minutes (or answer
/// `TooManyProviderTokenUpdates`) and never to use one older than 60 minutes (or answer `ExpiredProviderToken`).
actor APNsTokenProvider {
    struct Claims: JWTPayload {
        var iss: String
        var iat: Int

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// Between Apple's floor and ceiling, with room for clock skew on either side.
    static let refreshAge: TimeInterval = 50 * 60

    private let keys: JWTKeyCollection
    private let keyId: String
    private let teamId: String
    private var current: (token: String, issuedAt: Date)?
    /// The token being signed: concurrent callers wait for it rather than each minting one, which APNs would refuse
    /// as `TooManyProviderTokenUpdates`.
    private var minting: Task<(token: String, issuedAt: Date), any Error>?

    init(privateKeyPEM: String, keyId: String, teamId: String) async throws(HubConfigurationError) {
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(pem: privateKeyPEM)
        } catch {
            throw HubConfigurationError("\(ServeHubSettings.apnsKeyFile.name): not a PEM P-256 private key (.p8): \(error)")
        }
        self.keys = JWTKeyCollection()
        self.keyId = keyId
        self.teamId = teamId
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyId))
    }

    /// The token to send now: the current one while it is younger than ``refreshAge``, a new one otherwise.
    func token(now: Date = .now) async throws -> String {
        if let current, now.timeIntervalSince(current.issuedAt) < Self.refreshAge { return current.token }
        if let minting { return try await minting.value.token }
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let claims = Claims(iss: teamId, iat: Int(issuedAt.timeIntervalSince1970))
        let task = Task { [keys, keyId] in (token: try await keys.sign(claims, kid: JWKIdentifier(string: keyId)), issuedAt: issuedAt) }
        minting = task
        defer { minting = nil }
        let minted = try await task.value
        current = minted
        return minted.token
    }

    /// APNs called `token` expired: the next request mints a new one. Concurrent rejections of the same token
    /// cause one refresh, not one each.
    func expire(_ token: String) {
        if current?.token == token { current = nil }
    }
}
