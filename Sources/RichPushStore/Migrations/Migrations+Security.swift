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

    /// The outbox of state pushes: one row per installation and notification, so a newer state replaces an older one
    /// not yet sent; `version` tells an outcome whether the state it sent is still the latest.
    static func createStatePushes(_ db: any SQLDatabase) async throws {
        try await db.create(table: "state_pushes")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("installation_id", type: .text, .notNull)
            .column("notification_id", type: .bigint, .notNull)
            .column("owner", type: .text, .notNull)
            .column("event", type: .text, .notNull)
            .column("read_state", type: .text)
            .column("user_action_state", type: .text)
            .column("version", type: .bigint, .notNull)
            .column("state", type: .text, .notNull)
            .column("due_at", type: .bigint, .notNull)
            .column("claimed_until", type: .bigint)
            .column("last_sent_at", type: .bigint)
            .column("attempts", type: .int, .notNull)
            .column("error_code", type: .text)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "state_pushes_by_device").on("state_pushes").column("installation_id").column("notification_id").unique()
            .run()
        try await db.raw("CREATE INDEX state_pushes_due ON state_pushes (due_at) WHERE state = 'pending'").run()
        try await db.create(index: "state_pushes_by_notification").on("state_pushes").column("notification_id").run()
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
