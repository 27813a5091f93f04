import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// OAuth 2.0 access tokens from a token endpoint, reused until shortly before they expire; concurrent callers share
/// one exchange. FCM exchanges a signed assertion, WNS its client credentials: `form` makes the request's body.
actor OAuthAccessTokens {
    /// A token is replaced this long before the endpoint says it expires, so no request carries one about to lapse.
    static let renewalMargin: TimeInterval = 300

    private let endpoint: String
    private let client: HTTPClient
    /// Who the endpoint refused, for the sentence: "the service account", "the client credentials".
    private let credentialName: String
    private let form: @Sendable (Date) async throws -> String
    private var current: (token: String, expiresAt: Date)?
    private var pending: Task<(token: String, expiresAt: Date), any Error>?

    init(endpoint: String, client: HTTPClient, credentialName: String, form: @escaping @Sendable (Date) async throws -> String) {
        self.endpoint = endpoint
        self.client = client
        self.credentialName = credentialName
        self.form = form
    }

    /// A valid access token.
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
            throw .refused("the token request could not be made: \(error)")
        }
    }

    /// The hub refused `token`: the next call exchanges again.
    func expire(_ token: String) {
        if current?.token == token { current = nil }
    }

    private func exchange(now: Date) async throws -> (token: String, expiresAt: Date) {
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: try await form(now)))
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
            throw CredentialFailure.refused("the token endpoint refused \(credentialName): \(reason)")
        }
        let lifetime = (body?["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        return (token, now + lifetime)
    }

    /// `application/x-www-form-urlencoded` of `fields`, in their order.
    static func form(_ fields: KeyValuePairs<String, String>) -> String {
        fields.map { $0.key + "=" + $0.value.percentEncoded(keeping: "-._~") }.joined(separator: "&")
    }
}
