import SQLKit

extension Migrations {
    /// A notification's outbox written in chunks after it: `outbox_through` names the last installation whose delivery
    /// is written while more are to come (empty before the first; null once the outbox is whole), and
    /// `outbox_claimed_at` when a process last wrote a chunk of it, so another completes an outbox whose writer died.
    static func addOutboxChunks(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("outbox_through", type: .text).run()
        try await db.alter(table: "notifications").column("outbox_claimed_at", type: .bigint).run()
        try await db.raw("CREATE INDEX notifications_outbox_unfinished ON notifications (outbox_claimed_at) WHERE outbox_through IS NOT NULL")
            .run()
        // A chunk finds the installations of a tag after the last one written in order, in one range of this index.
        try await db.drop(index: "installation_tags_tag").run()
        try await db.create(index: "installation_tags_tag_installation").on("installation_tags").column("tag").column("installation_id").run()
    }
}
