public import Foundation
public import RichPushCore
import SQLKit

/// An API token as it is listed: never its secret, which is kept only as a digest.
public struct TokenRecord: Sendable, Equatable {
    public var id: String
    public var owner: String
    public var name: String
    public var role: Role
    public var createdAt: Date
    public var expiresAt: Date?
    public var lastUsedAt: Date?
}

/// Who a presented token speaks for, as of now.
public struct TokenUse: Sendable, Equatable {
    public var tokenId: String
    public var username: String
    /// The token's role, lowered to its owner's present role.
    public var role: Role
    public var expiresAt: Date?
}

extension Store {
    public func createToken(
        id: String, owner: String, name: String, role: Role, secretDigest: String, expiresAt: Date?, audit: AuditEntry? = nil,
        now: Date = .now
    ) async throws -> TokenRecord {
        try await engine.transaction { db in
            try await db.insert(into: "api_tokens")
                .columns("id", "owner", "name", "role", "secret_digest", "created_at", "expires_at")
                .values(id, owner, name, role.rawValue, secretDigest, EpochMilliseconds(now), expiresAt.map(EpochMilliseconds))
                .run()
            try await Self.record(audit, in: db, now: now)
            return TokenRecord(id: id, owner: owner, name: name, role: role, createdAt: now, expiresAt: expiresAt, lastUsedAt: nil)
        }
    }

    /// The tokens of `owner` (of everyone when nil) whose role is at most `role` (any role when nil), newest first.
    public func tokens(ownedBy owner: String?, roleAtMost role: Role? = nil) async throws -> [TokenRecord] {
        try await engine.read { db in
            var query = db.select().columns(Self.tokenColumns).from("api_tokens")
            if let owner { query = query.where("owner", .equal, owner) }
            if let role { query = query.where("role", .in, role.included.map(\.rawValue)) }
            return try await query.orderBy("created_at", .descending).orderBy("id").all().map(Self.tokenRecord)
        }
    }

    /// Removes the token `id` if `owner` (any owner when nil) holds it and its role is at most `role` (any role when
    /// nil); returns what was removed, recorded in the trail as `audit` tells.
    public func deleteToken(
        id: String, ownedBy owner: String?, roleAtMost role: Role? = nil, audit: @escaping @Sendable (TokenRecord) -> AuditEntry? = { _ in nil },
        now: Date = .now
    ) async throws -> TokenRecord? {
        try await engine.transaction { db in
            var query = db.delete(from: "api_tokens").where("id", .equal, id)
            if let owner { query = query.where("owner", .equal, owner) }
            if let role { query = query.where("role", .in, role.included.map(\.rawValue)) }
            guard let record = try await query.returning(Self.tokenColumns.map { SQLColumn($0) }).first().map(Self.tokenRecord) else {
                return nil
            }
            try await Self.record(audit(record), in: db, now: now)
            return record
        }
    }

    /// The user a token with this secret digest speaks for, nil when there is none, it has expired or its owner is
    /// gone; records the use as the token's `lastUsedAt`.
    public func useToken(secretDigest: String, now: Date = .now) async throws -> TokenUse? {
        // Losing the last use time to a crash is harmless: it is not worth a disk sync per check.
        try await engine.transaction(.deferred) { db in
            let row = try await db.update("api_tokens").set("last_used_at", to: EpochMilliseconds(now))
                .where("secret_digest", .equal, secretDigest)
                .where { $0.where("expires_at", .is, SQLLiteral.null).orWhere("expires_at", .greaterThan, EpochMilliseconds(now)) }
                .returning("id", "owner", "role", "expires_at").first()
            guard let row else { return nil }
            let owner = try row.string("owner")
            guard let user = try await db.select().column("role").from("users").where("username", .equal, owner).first() else {
                return nil
            }
            let ownerRole = try user.enumeration("role", as: Role.self)
            return TokenUse(
                tokenId: try row.string("id"), username: owner, role: try row.enumeration("role", as: Role.self).limited(to: ownerRole),
                expiresAt: try row.optionalDate("expires_at"))
        }
    }

    static func deleteTokens(ownedBy owner: String, in db: any SQLDatabase) async throws {
        try await db.delete(from: "api_tokens").where("owner", .equal, owner).run()
    }

    private static let tokenColumns = ["id", "owner", "name", "role", "created_at", "expires_at", "last_used_at"]

    private static func tokenRecord(_ row: any SQLRow) throws -> TokenRecord {
        TokenRecord(
            id: try row.string("id"), owner: try row.string("owner"), name: try row.string("name"),
            role: try row.enumeration("role", as: Role.self), createdAt: try row.date("created_at"),
            expiresAt: try row.optionalDate("expires_at"), lastUsedAt: try row.optionalDate("last_used_at"))
    }
}
