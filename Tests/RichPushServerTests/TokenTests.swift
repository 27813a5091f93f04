import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import TestSupport
import Testing

@Suite("API tokens")
struct TokenTests {
    /// Creates a token as `user` and returns its secret.
    func createToken(_ session: Session, as user: Credentials, json: String = #"{"name":"deploy script"}"#) async throws -> String {
        let response = try await session.request(.post, "/api/tokens", as: user, json: json)
        guard response.status == .created, let token = try response.json()["token"] as? String else {
            throw TestFailure("token: \(response.status) \(String(buffer: response.body))")
        }
        return token
    }

    func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    @Test func aTokenSpeaksForItsOwnerAsABearer() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let token = try await createToken(session, as: alice)
            #expect(token.hasPrefix("rp_"))
            let me = try await session.request(.get, "/api/users/me", headers: bearer(token))
            #expect(me.status == .ok)
            #expect(try me.json()["username"] as? String == "alice")
        }
    }

    @Test func aTokenIsTheBasicPasswordBesideItsOwnersNameOnly() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            _ = try await session.createUser("bob")
            let token = try await createToken(session, as: alice)
            #expect(try await session.request(.get, "/api/users/me", as: Credentials(username: "alice", password: token)).status == .ok)
            #expect(try await session.request(.get, "/api/users/me", as: Credentials(username: "bob", password: token)).status == .unauthorized)
        }
    }

    @Test func theSecretIsShownOnceAndTheListShowsWhenItWasLastUsed() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let token = try await createToken(session, as: alice)
            _ = try await session.request(.get, "/api/users/me", headers: bearer(token))
            let list = try await session.request(.get, "/api/tokens", as: alice)
            #expect(!String(buffer: list.body).contains(token))
            let items = try #require(try list.json()["items"] as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["name"] as? String == "deploy script")
            #expect(items.first?["role"] as? String == "member")
            #expect(items.first?["token"] == nil)
            #expect(items.first?["lastUsedAt"] as? String != nil)
        }
    }

    @Test func aLesserTokenNeitherSeesNorRevokesItsOwnersStrongerTokens() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let strong = try await session.request(.post, "/api/tokens", as: mark, json: #"{"name":"campaigns"}"#).json()
            let strongId = try #require(strong["id"] as? String)
            let weak = try await createToken(session, as: mark, json: #"{"name":"reader","role":"member"}"#)
            let listed = try await session.request(.get, "/api/tokens", headers: bearer(weak)).json()["items"] as? [[String: Any]]
            #expect(listed?.map { $0["name"] as? String } == ["reader"])
            let revoked = try await session.request(.delete, "/api/tokens/\(strongId)", headers: bearer(weak))
            #expect(revoked.status == .notFound)
            let created = try await session.request(.post, "/api/tokens", json: #"{"name":"escalate","role":"marketer"}"#, headers: bearer(weak))
            #expect(created.status == .forbidden)
            let still = try await session.request(.get, "/api/tokens", as: mark).json()["items"] as? [[String: Any]]
            #expect(Set(still?.compactMap { $0["name"] as? String } ?? []) == ["campaigns", "reader"])
            let audit = try await session.request(.get, "/api/audit", as: .admin).json()["items"] as? [[String: Any]]
            #expect(audit?.contains { $0["action"] as? String == "token.revoked" } == false)
        }
    }

    @Test func aTokenThatExpiresCannotLeaveBehindOneThatOutlivesIt() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let expiry = Timestamp.format(Date.now + 3600)
            let stolen = try await createToken(session, as: mark, json: #"{"name":"ci","expiresAt":"\#(expiry)"}"#)
            let created = try await session.request(.post, "/api/tokens", json: #"{"name":"left behind"}"#, headers: bearer(stolen))
            #expect(created.status == .created)
            #expect(try created.json()["expiresAt"] as? String == expiry)
            let later = Timestamp.format(Date.now + 7200)
            let outliving = try await session.request(
                .post, "/api/tokens", json: #"{"name":"forever","expiresAt":"\#(later)"}"#, headers: bearer(stolen))
            #expect(outliving.status == .unprocessableContent)
            #expect(try outliving.error().code == "token.invalidExpiry")
        }
    }

    @Test func aRevokedTokenIsRefusedAtOnce() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let token = try await createToken(session, as: alice)
            #expect(try await session.request(.get, "/api/users/me", headers: bearer(token)).status == .ok)
            let id = try #require(try await session.request(.get, "/api/tokens", as: alice).json()["items"] as? [[String: Any]])[0]["id"] as? String
            #expect(try await session.request(.delete, "/api/tokens/\(try #require(id))", as: alice).status == .noContent)
            let refused = try await session.request(.get, "/api/users/me", headers: bearer(token))
            #expect(refused.status == .unauthorized)
            #expect(try refused.error().message.contains("revoked"))
        }
    }

    @Test func aMemberMayNotRevokeAnotherUsersTokenButAnAdminMay() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            _ = try await createToken(session, as: alice)
            let id = try #require(try await session.request(.get, "/api/tokens", as: alice).json()["items"] as? [[String: Any]])[0]["id"] as? String
            #expect(try await session.request(.delete, "/api/tokens/\(try #require(id))", as: bob).status == .notFound)
            let everyone = try #require(try await session.request(.get, "/api/tokens", as: .admin).json()["items"] as? [[String: Any]])
            #expect(everyone.map { $0["owner"] as? String } == ["alice"])
            #expect((try await session.request(.get, "/api/tokens", as: bob).json()["items"] as? [[String: Any]])?.isEmpty == true)
            #expect(try await session.request(.delete, "/api/tokens/\(try #require(id))", as: .admin).status == .noContent)
        }
    }

    @Test func aTokenCannotOutrankItsCreator() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(.post, "/api/tokens", as: alice, json: #"{"name":"escalate","role":"admin"}"#)
            #expect(response.status == .forbidden)
            #expect((try await session.request(.get, "/api/tokens", as: alice).json()["items"] as? [[String: Any]])?.isEmpty == true)
        }
    }

    @Test func aTokenWithALesserRoleMayDoOnlyWhatThatRoleMay() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let token = try await createToken(session, as: mark, json: #"{"name":"read only","role":"member"}"#)
            #expect(try await session.request(.get, "/api/users/me", headers: bearer(token)).json()["role"] as? String == "member")
            let send = try await session.request(
                .post, "/api/notifications", json: #"{"message":"Sale","richType":"text","text":"Now","audience":"topic:all"}"#,
                headers: bearer(token))
            #expect(send.status == .forbidden)
        }
    }

    @Test(arguments: [#"{"name":"old","expiresAt":"2020-01-01T00:00:00Z"}"#, #"{"name":"x","expiresAt":"soon"}"#])
    func aTokenThatWouldBeBornExpiredIs422(json: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(.post, "/api/tokens", as: alice, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "token.invalidExpiry")
        }
    }

    @Test(arguments: ["browser session", "browser session from a token"])
    func aTokenMayNotTakeABrowserSessionsNameSoNoScriptPassesForAPassword(name: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(.post, "/api/tokens", as: alice, json: #"{"name":"\#(name)"}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "token.invalidName")
            #expect((try await session.request(.get, "/api/tokens", as: alice).json()["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(arguments: [#"{"name":""}"#, #"{"name":"a\u0007b"}"#])
    func aTokenNeedsAPrintableName(json: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(.post, "/api/tokens", as: alice, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "token.invalidName")
        }
    }

    @Test func anUnknownBearerTokenIs401() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/users/me", headers: bearer("rp_" + String(repeating: "A", count: 43)))
            #expect(response.status == .unauthorized)
            #expect(try response.error().code == "auth.required")
        }
    }

    @Test func theTokensOfARemovedUserStopWorking() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let token = try await createToken(session, as: alice)
            #expect(try await session.request(.delete, "/api/users/alice", as: .admin).status == .noContent)
            #expect(try await session.request(.get, "/api/users/me", headers: bearer(token)).status == .unauthorized)
        }
    }
}
