public import Foundation
public import RichPushCore
import SQLKit

/// The users in the `users` table.
public struct SQLUserRepository: UserRepository {
    let engine: any DatabaseEngine
    /// Platforms whose installations a remote hub mirrors: removing the user's installations queues their removal there.
    let mirroredPlatforms: Set<Platform>

    public func create(username: String, passwordHash: String, role: Role, audit: AuditEntry? = nil, now: Date = .now) async throws
        -> UserRecord
    {
        try await engine.transaction { db in
            let row = try await db.insert(into: "users")
                .columns("username", "password_hash", "role", "created_at")
                .values(username, passwordHash, role.rawValue, EpochMilliseconds(now))
                // No target: the conflict may be on the case-folded index as well as on the name itself.
                .ignoringConflicts()
                .returning("id")
                .first()
            guard let row else { throw StoreError.duplicate("username") }
            try await SQLAuditLog.record(audit, in: db, now: now)
            return UserRecord(id: try row.int64("id"), username: username, passwordHash: passwordHash, role: role, createdAt: now)
        }
    }

    public func user(named username: String) async throws -> UserRecord? {
        try await engine.read { db in
            try await db.select().columns("id", "username", "password_hash", "role", "created_at").from("users")
                .where("username", .equal, username).first()
                .map { row in
                    UserRecord(
                        id: try row.int64("id"), username: try row.string("username"),
                        passwordHash: try row.string("password_hash"), role: try row.enumeration("role", as: Role.self),
                        createdAt: try row.date("created_at"))
                }
        }
    }

    public func count() async throws -> Int {
        try await engine.read { db in
            try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("users").first()?.int("n") ?? 0
        }
    }

    public func setPasswordHash(username: String, passwordHash: String, audit: AuditEntry? = nil, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            let changed = try await db.update("users").set("password_hash", to: passwordHash).where("username", .equal, username)
                .returning("id").first()
            guard changed != nil else { return false }
            try await SQLAuditLog.record(audit, in: db, now: now)
            return true
        }
    }

    public func delete(username: String, audit: AuditEntry? = nil, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            let deleted = try await db.delete(from: "users").where("username", .equal, username).returning("id").first()
            guard deleted != nil else { return false }
            let installations = try await db.select().column("id").from("installations").where("owner", .equal, username)
                .all().map { try $0.string("id") }
            for id in installations {
                _ = try await SQLInstallationRepository.deleteInstallation(id, mirrored: mirroredPlatforms, now: now, in: db)
            }
            try await db.delete(from: "feed_entries").where("username", .equal, username).run()
            try await db.delete(from: "events").where("username", .equal, username).run()
            try await SQLTokenRepository.deleteTokens(ownedBy: username, in: db)
            try await SQLAuditLog.record(audit, in: db, now: now)
            return true
        }
    }
}
