import SQLKit

extension Migrations {
    /// API tokens, each stored as the SHA-256 of its secret: the database never holds a token that works.
    static func createAPITokens(_ db: any SQLDatabase) async throws {
        try await db.create(table: "api_tokens")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("owner", type: .text, .notNull)
            .column("name", type: .text, .notNull)
            .column("role", type: .text, .notNull)
            .column("secret_digest", type: .text, .notNull, .unique)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint)
            .column("last_used_at", type: .bigint)
            .run()
        try await db.create(index: "api_tokens_by_owner").on("api_tokens").column("owner").run()
    }

    /// Who did what and when, newest first by id.
    static func createAuditTrail(_ db: any SQLDatabase) async throws {
        try await db.create(table: "audit_events")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("at", type: .bigint, .notNull)
            .column("actor", type: .text, .notNull)
            .column("action", type: .text, .notNull)
            .column("target", type: .text, .notNull)
            .column("details", type: .text)
            .run()
    }
}
