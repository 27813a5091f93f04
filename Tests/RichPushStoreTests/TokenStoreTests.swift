import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("API tokens and the audit trail in the store")
struct TokenStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: Engine.allCases) func aTokenWorksUntilItExpiresAndRecordsItsLastUse(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "alice", passwordHash: "x", role: .member)
            _ = try await store.tokens.create(
                id: "t1", owner: "alice", name: "ci", role: .member, secretDigest: "d1", expiresAt: start + 3600, now: start)
            #expect(try await store.tokens.use(secretDigest: "d1", now: start + 60)?.username == "alice")
            #expect(try await store.tokens.list(ownedBy: "alice").first?.lastUsedAt == start + 60)
            #expect(try await store.tokens.use(secretDigest: "d1", now: start + 3600) == nil)
            #expect(try await store.tokens.use(secretDigest: "other", now: start) == nil)
        }
    }

    @Test(arguments: Engine.allCases) func aTokenNeverOutranksItsOwnersPresentRole(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "mark", passwordHash: "x", role: .member)
            _ = try await store.tokens.create(id: "t1", owner: "mark", name: "ci", role: .marketer, secretDigest: "d1", expiresAt: nil)
            #expect(try await store.tokens.use(secretDigest: "d1")?.role == .member)
        }
    }

    @Test(arguments: Engine.allCases) func aRevokedOrOrphanedTokenSpeaksForNobody(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "alice", passwordHash: "x", role: .member)
            _ = try await store.users.create(username: "bob", passwordHash: "x", role: .member)
            _ = try await store.tokens.create(id: "a", owner: "alice", name: "a", role: .member, secretDigest: "da", expiresAt: nil)
            _ = try await store.tokens.create(id: "b", owner: "bob", name: "b", role: .member, secretDigest: "db", expiresAt: nil)
            #expect(try await store.tokens.delete(id: "a", ownedBy: "bob") == nil)
            #expect(try await store.tokens.delete(id: "a", ownedBy: "alice")?.name == "a")
            #expect(try await store.tokens.use(secretDigest: "da") == nil)
            #expect(try await store.users.delete(username: "bob"))
            #expect(try await store.tokens.use(secretDigest: "db") == nil)
            #expect(try await store.tokens.list(ownedBy: nil).isEmpty)
        }
    }

    @Test(arguments: Engine.allCases) func aChangeThatDoesNotHappenLeavesNoAuditEntry(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let entry = AuditEntry(actor: "admin", action: .userCreated, target: "alice", details: "member")
            _ = try await store.users.create(username: "alice", passwordHash: "h", role: .member, audit: entry)
            await #expect(throws: StoreError.duplicate("username")) {
                try await store.users.create(username: "Alice", passwordHash: "h", role: .member, audit: entry)
            }
            #expect(
                try await store.tokens.delete(id: "none", ownedBy: nil) { _ in AuditEntry(actor: "admin", action: .tokenRevoked, target: "none") }
                    == nil)
            #expect(
                !(try await store.users.setPasswordHash(
                    username: "ghost", passwordHash: "h", audit: AuditEntry(actor: "admin", action: .userPasswordChanged, target: "ghost"))))
            let events = try await store.audit.events(before: nil, limit: 10)
            #expect(events.map { "\($0.action) \($0.target)" } == ["user.created alice"])
            #expect(events.first?.details == "member")
        }
    }

    @Test(arguments: Engine.allCases) func aLesserRoleReachesOnlyTokensOfAtMostItsRole(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "mark", passwordHash: "h", role: .marketer)
            for (id, role) in [("strong", Role.marketer), ("weak", .member)] {
                _ = try await store.tokens.create(id: id, owner: "mark", name: id, role: role, secretDigest: "d-\(id)", expiresAt: nil)
            }
            #expect(try await store.tokens.list(ownedBy: "mark", roleAtMost: .member).map(\.id) == ["weak"])
            #expect(try await store.tokens.delete(id: "strong", ownedBy: "mark", roleAtMost: .member) == nil)
            #expect(Set(try await store.tokens.list(ownedBy: "mark").map(\.id)) == ["strong", "weak"])
        }
    }

    @Test(arguments: Engine.allCases) func theAuditTrailPagesNewestFirst(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for (offset, target) in ["a", "b", "c"].enumerated() {
                _ = try await store.users.create(
                    username: target, passwordHash: "h", role: .member, audit: AuditEntry(actor: "admin", action: .userCreated, target: target),
                    now: start + Double(offset))
            }
            let first = try await store.audit.events(before: nil, limit: 2)
            #expect(first.map(\.target) == ["c", "b"])
            #expect(first[0].at == start + 2)
            #expect(try await store.audit.events(before: first[1].id, limit: 2).map(\.target) == ["a"])
        }
    }
}
