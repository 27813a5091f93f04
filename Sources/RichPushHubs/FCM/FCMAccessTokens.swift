import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore

/// OAuth 2.0 access tokens for FCM, obtained with the service account's RS256-signed assertion at its `token_uri`
/// and reused until shortly before they expire.
actor FCMAccessTokens {
    struct Assertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// A token is replaced this long before Google says it expires, so no request carries one that is about to lapse.
    static let renewalMargin: TimeInterval = 300

    private let account: ServiceAccount
    private let keys = JWTKeyCollection()
    private let client: HTTPClient
    private var current: (token: String, expiresAt: Date)?
    private var pending: Task<(token: String, expiresAt: Date), any Error>?

    init(account: ServiceAccount, client: HTTPClient) async throws(HubConfigurationError) {
        let key: Insecure.RSA.PrivateKey
        do {
            key = try Insecure.RSA.PrivateKey(pem: account.privateKey)
        } catch {
            throw HubConfigurationError("fcm-service-account-file: private_key is not a PEM RSA private key")
        }
        self.account = account
        self.client = client
        await keys.add(rsa: key, digestAlgorithm: .sha256)
    }

    /// A valid access token; concurrent callers share one exchange.
    func token(now: Date = .now) async throws(CredentialFailure) -> String {
        if let current, current.expiresAt.timeIntervalSince(now) > Self.renewalMargin { return current.token }
        let exchange = pending ?? Task { try await self.exchange(now: now) }
        pending = exchange
        defer { pending = nil }
        do {
            let fresh = try await exchange.value
            current = fresh
            return fresh.token
        } catch let failure as CredentialFailure {
            throw failure
        } catch {
            throw .refused("the assertion could not be signed: \(error)")
        }
    }

    /// FCM refused `token`: the next call exchanges a new assertion.
    func expire(_ token: String) {
        if current?.token == token { current = nil }
    }

    private func exchange(now: Date) async throws -> (token: String, expiresAt: Date) {
        let issuedAt = Int(now.timeIntervalSince1970)
        let assertion = try await keys.sign(
            Assertion(iss: account.clientEmail, scope: Self.scope, aud: account.tokenURI, iat: issuedAt, exp: issuedAt + 3600))
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let form = "grant_type=" + Self.formEncode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + Self.formEncode(assertion)
        request.body = .bytes(ByteBuffer(string: form))
        let response: HubResponse
        do {
            response = try await client.hubExecute(request)
        } catch {
            throw CredentialFailure.unavailable("the token endpoint could not be reached: \(error)")
        }
        let body = response.jsonObject
        guard response.status == 200, let token = body?["access_token"] as? String else {
            let reason = (body?["error_description"] as? String) ?? (body?["error"] as? String) ?? "status \(response.status)"
            if response.status >= 500 || response.status == 429 { throw CredentialFailure.unavailable("the token endpoint answered \(reason)") }
            throw CredentialFailure.refused("the token endpoint refused the service account: \(reason)")
        }
        let lifetime = (body?["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        return (token, now + lifetime)
    }

    private static func formEncode(_ text: String) -> String {
        text.percentEncoded(keeping: "-._~")
    }
}
