import SQLKit

extension Migrations {
    /// Live Activities: each activity (`live_activities`, its attributes and latest content state as JSON text and a
    /// version counting its states), the tokens devices registered (`activity_start_tokens`, one push-to-start token an
    /// installation; `activity_update_tokens`, one an activity and installation), and one row a device
    /// (`activity_deliveries`) holding the event its next push carries and the version it was last sent.
    static func createLiveActivities(_ db: any SQLDatabase) async throws {
        try await db.create(table: "live_activities")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("audience", type: .text, .notNull)
            .column("attributes_type", type: .text, .notNull)
            .column("attributes", type: .text, .notNull)
            .column("content_state", type: .text, .notNull)
            .column("alert", type: .text)
            .column("stale_date", type: .bigint)
            // Eight bytes: PostgreSQL's REAL would bring 0.8 back as 0.800000011920929.
            .column("relevance_score", type: .custom(SQLRaw("DOUBLE PRECISION")))
            .column("created_by", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("version", type: .bigint, .notNull)
            .column("ended_at", type: .bigint)
            .column("dismissal_date", type: .bigint)
            .run()
        try await db.create(table: "activity_start_tokens")
            .column("installation_id", type: .text, .primaryKey(autoIncrement: false))
            .column("token", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(table: "activity_update_tokens")
            .column("activity_id", type: .bigint, .notNull)
            .column("installation_id", type: .text, .notNull)
            .column("token", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .primaryKey("activity_id", "installation_id")
            .run()
        try await db.create(table: "activity_deliveries")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("activity_id", type: .bigint, .notNull)
            .column("installation_id", type: .text, .notNull)
            .column("owner", type: .text, .notNull)
            .column("event", type: .text, .notNull)
            .column("version", type: .bigint, .notNull)
            .column("sent_version", type: .bigint, .notNull)
            .column("state", type: .text, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("due_at", type: .bigint, .notNull)
            .column("lease_until", type: .bigint)
            .column("error_code", type: .text)
            .column("finished_at", type: .bigint)
            .run()
        try await db.create(index: "activity_deliveries_once").on("activity_deliveries").column("activity_id").column("installation_id")
            .unique().run()
        try await db.create(index: "activity_deliveries_due").on("activity_deliveries").column("state").column("due_at").run()
    }

    /// The alert each activity started with (`live_activities.start_alert`), which its start pushes raise when the
    /// latest change raised none. An activity still at its first version started with the alert it has.
    static func keepActivityStartAlerts(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "live_activities").column("start_alert", type: .text).run()
        try await db.update("live_activities").set("start_alert", to: SQLColumn("alert")).where("version", .equal, 1).run()
    }
}
