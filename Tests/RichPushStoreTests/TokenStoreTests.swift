import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("API tokens and the audit trail in the store")
struct TokenStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: Engine.allCases) func aTokenWorksUntilItExpiresAndRecordsItsLastUse(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.createUser(username: "alice", passwordHash: "x", role: .member)
            _ = try await store.createToken(
                id: "t1", owner: "alice", name: "ci", role: .member, secretDigest: "d1", expiresAt: start + 3600, now: start)
            #expect(try await store.useToken(secretDigest: "d1", now: start + 60)?.username == "alice")
            #expect(try await store.tokens(ownedBy: "alice").first?.lastUsedAt == start + 60)
            #expect(try await store.useToken(secretDigest: "d1", now: start + 3600) == nil)
            #expect(try await store.useToken(secretDigest: "other", now: start) == nil)
        }
    }

    @Test(arguments: Engine.allCases) func aTokenNeverOutranksItsOwnersPresentRole(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.createUser(username: "mark", passwordHash: "x", role: .member)
            _ = try await store.createToken(id: "t1", owner: "mark", name: "ci", role: .marketer, secretDigest: "d1", expiresAt: nil)
            #expect(try await store.useToken(secretDigest: "d1")?.role == .member)
        }
    }

    @Test(arguments: Engine.allCases) func aRevokedOrOrphanedTokenSpeaksForNobody(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.createUser(username: "alice", passwordHash: "x", role: .member)
            _ = try await store.createUser(username: "bob", passwordHash: "x", role: .member)
            _ = try await store.createToken(id: "a", owner: "alice", name: "a", role: .member, secretDigest: "da", expiresAt: nil)
            _ = try await store.createToken(id: "b", owner: "bob", name: "b", role: .member, secretDigest: "db", expiresAt: nil)
            #expect(try await store.deleteToken(id: "a", ownedBy: "bob") == nil)
            #expect(try await store.deleteToken(id: "a", ownedBy: "alice")?.name == "a")
            #expect(try await store.useToken(secretDigest: "da") == nil)
            #expect(try await store.deleteUser(username: "bob"))
            #expect(try await store.useToken(secretDigest: "db") == nil)
            #expect(try await store.tokens(ownedBy: nil).isEmpty)
        }
    }

    @Test(arguments: Engine.allCases) func theAuditTrailPagesNewestFirst(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for (offset, target) in ["a", "b", "c"].enumerated() {
                try await store.recordAudit(actor: "admin", action: .userCreated, target: target, now: start + Double(offset))
            }
            let first = try await store.auditEvents(before: nil, limit: 2)
            #expect(first.map(\.target) == ["c", "b"])
            #expect(first[0].at == start + 2)
            #expect(try await store.auditEvents(before: first[1].id, limit: 2).map(\.target) == ["a"])
        }
    }
}
