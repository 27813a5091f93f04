import SQLKit

extension Migrations {
    /// Each installation's first fetch of a notification's payload, when the fetch named it (`?installationId=` with
    /// its owner's credentials, or the per-device signed link of its alert): a delivery's reach is its own device's
    /// fetch where one is known, and its user's (`feed_entries.fetched_at`, from any device) otherwise.
    static func recordFetchesPerInstallation(_ db: any SQLDatabase) async throws {
        try await db.create(table: "installation_fetches")
            .column("notification_id", type: .bigint, .notNull)
            .column("installation_id", type: .text, .notNull)
            .column("fetched_at", type: .bigint, .notNull)
            .primaryKey("notification_id", "installation_id")
            .run()
        if db.dialect.name != "sqlite" {
            // Compared with `deliveries.installation_id`, whose ids are compared byte by byte (``compareInstallationIdsByteByByte``).
            try await db.raw("ALTER TABLE installation_fetches ALTER COLUMN installation_id TYPE text COLLATE \"C\"").run()
        }
    }

    /// A campaign's delivery rate (`delivery_rate`, pushes a minute) and where its pace stands: `delivery_paces`
    /// holds the instant of the next push it lets go (milliseconds), a row apart from the notification's so that
    /// claimers in several processes take turns on it without holding up anything else that writes the notification.
    /// `payload_egress` holds each process's recent bytes a second of payloads served, for a limit they all keep.
    static func addPacing(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("delivery_rate", type: .bigint).run()
        try await db.create(table: "delivery_paces")
            .column("notification_id", type: .bigint, .primaryKey(autoIncrement: false))
            .column("next_at", type: .bigint, .notNull)
            .run()
        // Every claim asks which paces are ahead of now: through this index, not by reading every pace there was.
        try await db.create(index: "delivery_paces_next").on("delivery_paces").column("next_at").run()
        try await db.create(table: "payload_egress")
            .column("process_id", type: .text, .primaryKey(autoIncrement: false))
            .column("bytes_per_second", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
    }
}
