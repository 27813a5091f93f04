public import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// A loopback WNS over TLS: the OAuth token endpoint checks the client-credentials form (grant type, id, secret,
/// scope) and issues bearer tokens; each channel URI (`https://127.0.0.1:<port>/c/<name>`) takes a raw notification
/// only with an issued token, `X-WNS-Type: wns/raw`, `Content-Type: application/octet-stream`, a body of at most
/// 5 KB and a whole-seconds `X-WNS-TTL`, and answers as WNS would, or as scripted per channel.
public final class WNSTestServer: Sendable {
    /// One raw notification that passed every check.
    public struct Notification: Sendable, Equatable {
        public var channel: String
        public var body: String
        public var timeToLive: Int?
        public var accessToken: String
    }

    /// A scripted answer for a channel: a status and, for 406 and 5xx, maybe a `Retry-After`.
    public struct Answer: Sendable {
        public var status: Int
        public var retryAfter: String?

        public init(status: Int, retryAfter: String? = nil) {
            self.status = status
            self.retryAfter = retryAfter
        }
    }

    private struct State {
        var accepted: [Notification] = []
        var answers: [String: [Answer]] = [:]
        var issuedTokens: Set<String> = []
        var exchanges = 0
        var refuseCredentials = false
        var violations: [String] = []
    }

    public static let clientId = "ms-app://s-1-15-2-1234567890"
    public static let clientSecret = "wns-test-secret/with+symbols="
    public static let scope = "notify.windows.com"

    public let authority: TestCertificateAuthority
    public let server: LoopbackServer
    private let state: NIOLockedValueBox<State>

    /// The token endpoint the gateway is configured with.
    public var tokenEndpoint: String { "https://127.0.0.1:\(server.port)/accesstoken.srf" }

    /// The channel URI of the device `name`.
    public func channel(_ name: String) -> String { "https://127.0.0.1:\(server.port)/c/\(name)" }

    private init(authority: TestCertificateAuthority, server: LoopbackServer, state: NIOLockedValueBox<State>) {
        self.authority = authority
        self.server = server
        self.state = state
    }

    public static func start(directory: URL) async throws -> WNSTestServer {
        let authority = try TestCertificateAuthority(directory: directory)
        let state = NIOLockedValueBox(State())
        let router = Router(context: LoopbackContext.self)
        router.post("accesstoken.srf") { request, _ in try await Self.exchange(request, state: state) }
        router.post("c/:channel") { request, context in
            try await Self.send(request, channel: context.parameters.get("channel") ?? "", state: state)
        }
        let server = try await LoopbackServer.start(router, tls: authority.serverTLSConfiguration())
        return WNSTestServer(authority: authority, server: server, state: state)
    }

    public func stop() async {
        await server.stop()
    }

    public var accepted: [Notification] { state.withLockedValue { $0.accepted } }
    public var violations: [String] { state.withLockedValue { $0.violations } }
    /// How many times client credentials were exchanged for a token.
    public var tokenExchanges: Int { state.withLockedValue { $0.exchanges } }

    public func answer(_ channel: String, with answers: Answer...) {
        state.withLockedValue { $0.answers[channel, default: []].append(contentsOf: answers) }
    }

    /// Every token issued so far stops working, as when one expires.
    public func revokeAccessTokens() {
        state.withLockedValue { $0.issuedTokens.removeAll() }
    }

    /// The token endpoint answers `invalid_client`, as for a wrong secret.
    public func refuseCredentials() {
        state.withLockedValue { $0.refuseCredentials = true }
    }

    private static func exchange(_ request: Request, state: NIOLockedValueBox<State>) async throws -> Response {
        let form = formFields(String(buffer: try await request.body.collect(upTo: 64 * 1024)))
        func refuse(_ error: String, _ description: String, violation: Bool = true) -> Response {
            if violation { state.withLockedValue { $0.violations.append("token: \(description)") } }
            return json(400, ["error": error, "error_description": description])
        }
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else {
            return refuse("invalid_request", "the body must be form-encoded")
        }
        guard form["grant_type"] == "client_credentials" else { return refuse("unsupported_grant_type", "grant_type must be client_credentials") }
        guard form["scope"] == scope else { return refuse("invalid_scope", "scope must be \(scope), not \(form["scope"] ?? "none")") }
        guard form["client_id"] == clientId, form["client_secret"] == clientSecret else {
            return refuse("invalid_client", "the client id or secret is wrong")
        }
        if state.withLockedValue({ $0.refuseCredentials }) { return refuse("invalid_client", "Invalid client secret", violation: false) }
        let token = "EgAaAQMAAAAEgAAAC" + UUID().uuidString
        state.withLockedValue { state in
            state.issuedTokens.insert(token)
            state.exchanges += 1
        }
        return json(200, ["access_token": token, "token_type": "bearer", "expires_in": 86400])
    }

    private static func send(_ request: Request, channel: String, state: NIOLockedValueBox<State>) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        func answer(_ status: Int, _ violation: String? = nil, retryAfter: String? = nil) -> Response {
            if let violation { state.withLockedValue { $0.violations.append("send: \(violation)") } }
            var headers: HTTPFields = [:]
            if let violation { headers[HTTPField.Name("X-WNS-Error-Description")!] = violation }
            if let retryAfter { headers[.retryAfter] = retryAfter }
            return Response(status: .init(code: status), headers: headers)
        }
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
            state.withLockedValue({ $0.issuedTokens.contains(String(authorization.dropFirst(7))) })
        else { return answer(401) }
        guard request.headers[HTTPField.Name("X-WNS-Type")!] == "wns/raw" else { return answer(400, "X-WNS-Type must be wns/raw") }
        guard request.headers[.contentType] == "application/octet-stream" else {
            return answer(400, "a raw notification's Content-Type is application/octet-stream")
        }
        let ttlText = request.headers[HTTPField.Name("X-WNS-TTL")!]
        let ttl = ttlText.flatMap { Int($0) }
        if ttlText != nil, (ttl ?? 0) < 1 { return answer(400, "X-WNS-TTL must be whole seconds") }
        guard body.readableBytes <= 5120 else { return answer(413, "the body is over 5 KB") }
        if let scripted = state.withLockedValue({ state -> Answer? in
            guard var queue = state.answers[channel], !queue.isEmpty else { return nil }
            let next = queue.removeFirst()
            state.answers[channel] = queue
            return next
        }) {
            return answer(scripted.status, retryAfter: scripted.retryAfter)
        }
        let notification = Notification(
            channel: channel, body: String(buffer: body), timeToLive: ttl, accessToken: String(authorization.dropFirst(7)))
        state.withLockedValue { $0.accepted.append(notification) }
        return Response(status: .ok, headers: [HTTPField.Name("X-WNS-Status")!: "received"])
    }
}
