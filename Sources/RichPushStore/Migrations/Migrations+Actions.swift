import SQLKit

extension Migrations {
    /// The button each user pressed (`feed_entries.action_id`) and the `http` actions the gateway ran (`action_runs`,
    /// one per user, notification and action, its key making the run happen once; `status` -1 while it runs, 0 when
    /// no answer came).
    static func addActions(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "feed_entries").column("action_id", type: .text).run()
        try await db.create(table: "action_runs")
            .column("notification_id", type: .bigint, .notNull)
            .column("username", type: .text, .notNull)
            .column("action_id", type: .text, .notNull)
            .column("status", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("notification_id", "username", "action_id")
            .run()
    }
}
