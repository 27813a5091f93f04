import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import RichPushServer

/// Pages of `--cors-origins` call the API with credentials; pages of any other origin get no CORS headers, which
/// the browser enforces. Over real sockets: the headers are put on at the connection, whoever answers.
@Suite("Cross-origin requests")
struct CORSTests {
    static let app = "https://app.example.com"

    func withGateway(_ body: @Sendable (Session) async throws -> Void) async throws {
        try await TestGateway({
            $0.corsPolicy = CORSPolicy(parsing: "\(Self.app), http://localhost:3000")!
            $0.payloadNotificationTimeToLive = 3600
            $0.credentialRevalidation = 3600
        }).run(.live, body)
    }

    @Test func aPreflightFromAnAllowedOriginIsAnsweredWithTheMethodsAndHeadersItAsked() async throws {
        try await withGateway { session in
            let preflight = try await session.request(
                .options, "/api/notifications",
                headers: [
                    .origin: Self.app, CORSHeaders.requestMethod: "POST", CORSHeaders.requestHeaders: "authorization, content-type",
                ])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[CORSHeaders.allowOrigin] == Self.app)
            #expect(preflight.headers[CORSHeaders.allowCredentials] == "true")
            #expect(preflight.headers[CORSHeaders.allowMethods] == "GET, HEAD, OPTIONS, POST")
            #expect(preflight.headers[CORSHeaders.allowHeaders] == "authorization, content-type")
            #expect(preflight.headers[CORSHeaders.maxAge] == "600")
        }
    }

    @Test func anAnswerAndAnErrorToAnAllowedOriginNameItAndExposeTheirHeaders() async throws {
        try await withGateway { session in
            let me = try await session.request(.get, "/api/users/me", as: .admin, headers: [.origin: "http://localhost:3000"])
            #expect(me.status == .ok)
            #expect(me.headers[CORSHeaders.allowOrigin] == "http://localhost:3000")
            #expect(me.headers[CORSHeaders.exposeHeaders]?.contains("Location") == true)
            #expect(me.headers[values: .vary].contains("Origin"))
            let refused = try await session.request(.get, "/api/users/me", headers: [.origin: Self.app])
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[CORSHeaders.allowOrigin] == Self.app)
        }
    }

    @Test(arguments: ["https://evil.example.com", "https://app.example.com.evil.example", "null"])
    func anOriginNotOnTheListGetsNoCORSHeaders(origin: String) async throws {
        try await withGateway { session in
            let preflight = try await session.request(
                .options, "/api/notifications", headers: [.origin: origin, CORSHeaders.requestMethod: "POST"])
            #expect(preflight.headers[CORSHeaders.allowOrigin] == nil)
            #expect(preflight.headers[CORSHeaders.allowMethods] == nil)
            let me = try await session.request(.get, "/api/users/me", as: .admin, headers: [.origin: origin])
            #expect(me.headers[CORSHeaders.allowOrigin] == nil)
            #expect(me.headers[CORSHeaders.allowCredentials] == nil)
        }
    }

    @Test func aPayloadAnsweredFromMemoryNamesTheOriginToo() async throws {
        try await withGateway { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let again = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.origin: Self.app])
            #expect(again.status == .ok)
            #expect(again.headers[CORSHeaders.allowOrigin] == Self.app)
        }
    }

    @Test(arguments: [
        ("https://app.example.com/", "https://app.example.com"), ("HTTP://LOCALHOST:3000", "http://localhost:3000"),
        ("https://app.example.com:443", "https://app.example.com"),
    ])
    func anOriginIsReadAsBrowsersSendIt(text: String, origin: String) {
        #expect(CORSPolicy(parsing: text)?.origins == [origin])
    }

    @Test(arguments: ["*", "https://app.example.com/console", "ftp://files.example.com", "app.example.com", "https://*.example.com", ""])
    func anythingButAnOriginIsRefused(text: String) {
        #expect(CORSPolicy(parsing: text) == nil)
    }
}
