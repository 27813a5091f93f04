import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@Suite("Audit trail")
struct AuditTests {
    func audit(_ session: Session, query: String = "") async throws -> (items: [[String: Any]], next: Int64?) {
        let json = try await session.request(.get, "/api/audit\(query)", as: .admin).json()
        return (try #require(json["items"] as? [[String: Any]]), json["next"] as? Int64)
    }

    @Test func anAdminReadsWhoDidWhatNewestFirst() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let id = try await session.send(
                #"{"message":"Sale","richType":"text","text":"Now","audience":"topic:all","deliverAt":"2099-01-01T00:00:00Z"}"#, as: mark)
            #expect(try await session.request(.delete, "/api/notifications/\(id)", as: mark).status == .noContent)
            let items = try await audit(session).items
            #expect(items.map { $0["action"] as? String } == ["notification.canceled", "notification.created", "user.created", "user.created"])
            #expect(items.map { $0["actor"] as? String } == ["mark", "mark", "admin", "bootstrap"])
            #expect(items[0]["target"] as? String == String(id))
            #expect(items[2]["target"] as? String == "mark")
        }
    }

    @Test func tokensAndPasswordsAreAuditedWithoutTheirSecrets() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let created = try await session.request(.post, "/api/tokens", as: alice, json: #"{"name":"laptop"}"#).json()
            let token = try #require(created["token"] as? String)
            let id = try #require(created["id"] as? String)
            _ = try await session.request(
                .put, "/api/users/alice/password", as: alice, json: #"{"password":"another-password","currentPassword":"alice-password"}"#)
            let renewed = Credentials(username: "alice", password: "another-password")
            _ = try await session.request(.delete, "/api/tokens/\(id)", as: renewed)
            let response = try await session.request(.get, "/api/audit", as: .admin)
            let body = String(buffer: response.body)
            #expect(!body.contains(token))
            #expect(!body.contains("another-password"))
            let items = try #require(try response.json()["items"] as? [[String: Any]])
            #expect(items.prefix(3).map { $0["action"] as? String } == ["token.revoked", "user.passwordChanged", "token.created"])
            #expect(items[2]["target"] as? String == id)
        }
    }

    @Test func anActionTakenWithATokenNamesTheToken() async throws {
        try await TestGateway().run { session in
            let created = try await session.request(.post, "/api/tokens", as: .admin, json: #"{"name":"ci"}"#).json()
            let token = try #require(created["token"] as? String)
            _ = try await session.request(
                .post, "/api/users", json: #"{"username":"carol","password":"carol-password"}"#, headers: [.authorization: "Bearer \(token)"])
            let latest = try await audit(session).items[0]
            #expect(latest["action"] as? String == "user.created")
            #expect(latest["actor"] as? String == "admin")
            #expect((latest["details"] as? String)?.contains(try #require(created["id"] as? String)) == true)
        }
    }

    @Test func theTrailIsReadAPageAtATime() async throws {
        try await TestGateway().run { session in
            for name in ["a1", "a2", "a3", "a4"] { try await session.createUser(name) }
            let first = try await audit(session, query: "?limit=3")
            #expect(first.items.map { $0["target"] as? String } == ["a4", "a3", "a2"])
            let next = try #require(first.next)
            let second = try await audit(session, query: "?limit=3&before=\(next)")
            #expect(second.items.map { $0["target"] as? String } == ["a1", "admin"])
            #expect(second.next == nil)
        }
    }

    @Test func onlyAdminsReadTheTrail() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            #expect(try await session.request(.get, "/api/audit", as: mark).status == .forbidden)
        }
    }

    @Test func aLimitOutOfRangeIs400() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/audit?limit=0", as: .admin)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "request.invalidQuery")
        }
    }
}
