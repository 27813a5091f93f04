import SQLKit

extension Migrations {
    /// The button each user pressed (`action_id`) and, for an `http` action the gateway ran, the status its request
    /// got (`action_status`: -1 while it runs, 0 when no answer came).
    static func addActions(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "feed_entries").column("action_id", type: .text).run()
        try await db.alter(table: "feed_entries").column("action_status", type: .bigint).run()
    }
}
