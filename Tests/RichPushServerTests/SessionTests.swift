import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import RichPushCore
import Testing

@testable import RichPushServer

/// A browser signs in once and holds a cookie; its changes also carry the session's CSRF value. Over real sockets:
/// the cookie is read at the connection, before the router and the fast paths.
@Suite("Browser sessions")
struct SessionTests {
    /// A gateway with alice and her browser session: the cookie header to send and the CSRF value.
    func withSession(_ body: @Sendable (Session, Credentials, HTTPFields, String) async throws -> Void) async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            let signIn = try await session.request(.post, "/api/session", as: alice)
            #expect(signIn.status == .noContent)
            let setCookie = try #require(signIn.headers[.setCookie])
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
            let csrf = try #require(signIn.headers[SessionCookie.csrfHeader])
            try await body(session, alice, [.cookie: cookie], csrf)
        }
    }

    @Test func signingInGivesAnHttpOnlyStrictCookieOfTheWholeSite() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            let signIn = try await session.request(.post, "/api/session", as: alice)
            let attributes = try #require(signIn.headers[.setCookie]).split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(attributes[0].hasPrefix("richpush_session=rp_"))
            #expect(Set(attributes.dropFirst()).isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=604800"]))
            // Plain HTTP: a Secure cookie would never come back.
            #expect(!attributes.contains("Secure"))
        }
    }

    @Test func theCookieAloneSignsInAndTellsTheSessionsCSRFValue() async throws {
        try await withSession { session, _, cookie, csrf in
            let me = try await session.request(.get, "/api/users/me", headers: cookie)
            #expect(me.status == .ok)
            #expect(try me.json()["username"] as? String == "alice")
            let described = try await session.request(.get, "/api/session", headers: cookie).json()
            #expect(described["username"] as? String == "alice")
            #expect(described["role"] as? String == "member")
            #expect(described["csrf"] as? String == csrf)
        }
    }

    @Test func aChangeWithTheCookieNeedsTheCSRFValue() async throws {
        try await withSession { session, alice, cookie, csrf in
            let json = #"{"message":"m","richType":"text","text":"x"}"#
            let forged = try await session.request(.post, "/api/notifications", json: json, headers: cookie)
            #expect(forged.status == .forbidden)
            #expect(try forged.error().code == "auth.csrf")
            var wrong = cookie
            wrong[SessionCookie.csrfHeader] = "not-the-value"
            #expect(try await session.request(.post, "/api/notifications", json: json, headers: wrong).status == .forbidden)
            var confirmed = cookie
            confirmed[SessionCookie.csrfHeader] = csrf
            #expect(try await session.request(.post, "/api/notifications", json: json, headers: confirmed).status == .created)
            #expect(try await session.request(.get, "/api/me/notifications", as: alice).json()["items"] as? [Any] != nil)
        }
    }

    @Test func aSessionMadeWithAPasswordMakesTokensThatOutliveItAndIsNamedInTheAuditTrail() async throws {
        try await withSession { session, alice, cookie, csrf in
            var confirmed = cookie
            confirmed[SessionCookie.csrfHeader] = csrf
            let later = Timestamp.format(Date.now + 30 * 86_400)
            let created = try await session.request(
                .post, "/api/tokens", json: #"{"name":"deploy","expiresAt":"\#(later)"}"#, headers: confirmed)
            #expect(created.status == .created)
            let trail = try await session.request(.get, "/api/audit", as: .admin).json()["items"] as? [[String: Any]] ?? []
            let entry = try #require(trail.first { ($0["details"] as? String)?.hasPrefix("deploy") == true })
            #expect((entry["details"] as? String)?.contains("in browser session ") == true)
            #expect(entry["actor"] as? String == alice.username)
        }
    }

    @Test func aSessionMadeWithATokenIsThatTokenAndMakesNoneThatOutliveIt() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            let soon = Timestamp.format(Date.now + 86_400)
            let token = try #require(
                try await session.request(.post, "/api/tokens", as: alice, json: #"{"name":"script","expiresAt":"\#(soon)"}"#).json()["token"]
                    as? String)
            let signIn = try await session.request(.post, "/api/session", headers: [.authorization: "Bearer \(token)"])
            #expect(signIn.status == .noContent)
            var confirmed: HTTPFields = [.cookie: try #require(signIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))]
            confirmed[SessionCookie.csrfHeader] = try #require(signIn.headers[SessionCookie.csrfHeader])
            let later = Timestamp.format(Date.now + 30 * 86_400)
            let refused = try await session.request(
                .post, "/api/tokens", json: #"{"name":"longer","expiresAt":"\#(later)"}"#, headers: confirmed)
            #expect(refused.status == .unprocessableContent)
            #expect(try refused.error().code == "token.invalidExpiry")
        }
    }

    @Test func signingOutEndsTheSessionAndClearsTheCookie() async throws {
        try await withSession { session, _, cookie, csrf in
            var confirmed = cookie
            confirmed[SessionCookie.csrfHeader] = csrf
            let signOut = try await session.request(.delete, "/api/session", headers: confirmed)
            #expect(signOut.status == .noContent)
            #expect(signOut.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await session.request(.get, "/api/users/me", headers: cookie).status == .unauthorized)
        }
    }

    @Test func aRequestWithItsOwnCredentialsIsThoseCredentialsWhateverCookieItCarries() async throws {
        try await withSession { session, _, cookie, _ in
            let asAdmin = try await session.request(.get, "/api/users/me", as: .admin, headers: cookie)
            #expect(try asAdmin.json()["username"] as? String == "admin")
            let withoutSession = try await session.request(.get, "/api/session", as: .admin)
            #expect(withoutSession.status == .notFound)
            #expect(try withoutSession.error().code == "session.none")
        }
    }
}
