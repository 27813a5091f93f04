public import Foundation
public import RichPushCore
import SQLKit

/// The tokens in the `api_tokens` table.
public struct SQLTokenRepository: TokenRepository {
    let engine: any DatabaseEngine

    public func create(
        id: String, owner: String, name: String, role: Role, secretDigest: String, expiresAt: Date?, audit: AuditEntry? = nil,
        now: Date = .now
    ) async throws -> TokenRecord {
        try await engine.transaction { db in
            try await db.insert(into: "api_tokens")
                .columns("id", "owner", "name", "role", "secret_digest", "created_at", "expires_at")
                .values(id, owner, name, role.rawValue, secretDigest, EpochMilliseconds(now), expiresAt.map(EpochMilliseconds))
                .run()
            try await SQLAuditLog.record(audit, in: db, now: now)
            return TokenRecord(id: id, owner: owner, name: name, role: role, createdAt: now, expiresAt: expiresAt, lastUsedAt: nil)
        }
    }

    public func list(ownedBy owner: String?, roleAtMost role: Role? = nil) async throws -> [TokenRecord] {
        try await engine.read { db in
            var query = db.select().columns(Self.columns).from("api_tokens")
            if let owner { query = query.where("owner", .equal, owner) }
            if let role { query = query.where("role", .in, role.included.map(\.rawValue)) }
            return try await query.orderBy("created_at", .descending).orderBy("id").all().map(Self.record)
        }
    }

    public func delete(
        id: String, ownedBy owner: String?, roleAtMost role: Role? = nil, audit: @escaping @Sendable (TokenRecord) -> AuditEntry? = { _ in nil },
        now: Date = .now
    ) async throws -> TokenRecord? {
        try await engine.transaction { db in
            var query = db.delete(from: "api_tokens").where("id", .equal, id)
            if let owner { query = query.where("owner", .equal, owner) }
            if let role { query = query.where("role", .in, role.included.map(\.rawValue)) }
            guard let record = try await query.returning(Self.columns.map { SQLColumn($0) }).first().map(Self.record) else {
                return nil
            }
            try await SQLAuditLog.record(audit(record), in: db, now: now)
            return record
        }
    }

    public func use(secretDigest: String, now: Date = .now) async throws -> TokenUse? {
        // Losing the last use time to a crash is harmless: it is not worth a disk sync per check.
        try await engine.transaction(.deferred) { db in
            let row = try await db.update("api_tokens").set("last_used_at", to: EpochMilliseconds(now))
                .where("secret_digest", .equal, secretDigest)
                .where { $0.where("expires_at", .is, SQLLiteral.null).orWhere("expires_at", .greaterThan, EpochMilliseconds(now)) }
                .returning("id", "name", "owner", "role", "expires_at").first()
            guard let row else { return nil }
            let owner = try row.string("owner")
            guard let user = try await db.select().column("role").from("users").where("username", .equal, owner).first() else {
                return nil
            }
            let ownerRole = try user.enumeration("role", as: Role.self)
            return TokenUse(
                tokenId: try row.string("id"), name: try row.string("name"), username: owner,
                role: try row.enumeration("role", as: Role.self).limited(to: ownerRole),
                expiresAt: try row.optionalDate("expires_at"))
        }
    }

    /// Removes every token of `owner`, in the transaction that removes the user.
    static func deleteTokens(ownedBy owner: String, in db: any SQLDatabase) async throws {
        try await db.delete(from: "api_tokens").where("owner", .equal, owner).run()
    }

    private static let columns = ["id", "owner", "name", "role", "created_at", "expires_at", "last_used_at"]

    private static func record(_ row: any SQLRow) throws -> TokenRecord {
        TokenRecord(
            id: try row.string("id"), owner: try row.string("owner"), name: try row.string("name"),
            role: try row.enumeration("role", as: Role.self), createdAt: try row.date("created_at"),
            expiresAt: try row.optionalDate("expires_at"), lastUsedAt: try row.optionalDate("last_used_at"))
    }
}
