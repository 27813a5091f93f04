import SQLKit

extension Migrations {
    /// A notification's fetch deadline (`fallback_after`, milliseconds after each silent push) and the fallbacks it
    /// makes: one row per delivery whose silent push a hub accepted, written in the transaction that records the
    /// outcome (so a crash loses none), keyed by the delivery (so none is made twice), claimed under a lease as
    /// deliveries are, and ended `sent`, `failed` or `skipped` (with why: the payload was fetched, the notification
    /// recalled, …).
    static func addFallbacks(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("fallback_after", type: .bigint).run()
        try await db.create(table: "fallbacks")
            .column("delivery_id", type: .bigint, .primaryKey(autoIncrement: false))
            .column("notification_id", type: .bigint, .notNull)
            .column("installation_id", type: .text, .notNull)
            .column("owner", type: .text, .notNull)
            .column("state", type: .text, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("due_at", type: .bigint, .notNull)
            .column("lease_until", type: .bigint)
            .column("finished_at", type: .bigint)
            .column("reason", type: .text)
            .run()
        if db.dialect.name != "sqlite" {
            // Compared with `installations.id`, whose ids are compared byte by byte (``compareInstallationIdsByteByByte``).
            try await db.raw("ALTER TABLE fallbacks ALTER COLUMN installation_id TYPE text COLLATE \"C\"").run()
        }
        try await db.raw("CREATE INDEX fallbacks_pending_due ON fallbacks (due_at) WHERE state = 'pending'").run()
        try await db.create(index: "fallbacks_by_notification").on("fallbacks").column("notification_id").column("state").run()
    }

    /// A user's first fetch of a payload ends her pending fallbacks of it at once (``SQLFallbackQueue/skipPending(of:owner:reason:now:in:)``),
    /// found by notification, state and owner: the fetches of a campaign's users, spread over its deadline, end what
    /// its fallback claims would otherwise read and end all at once when the deadline comes.
    static func indexPendingFallbacksByOwner(_ db: any SQLDatabase) async throws {
        try await db.drop(index: "fallbacks_by_notification").run()
        try await db.create(index: "fallbacks_by_notification").on("fallbacks").column("notification_id").column("state").column("owner").run()
    }
}
