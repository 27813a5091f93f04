import Foundation
import Logging
import RichPushCore
import SQLKit
import Testing

@testable import RichPushStore

@Suite("Upgrades of the schema")
struct MigrationTests {
    /// The schema of the release before installations could be marked replaced and usernames were folded.
    static let roundOneSchema = 6
    /// The schema of the release before deliveries were tallied by state.
    static let beforeTallies = 24

    @Test(arguments: Engine.allCases) func anUpgradeKeepsEveryInstallationWithItsTags(_ engine: Engine) async throws {
        let database = try await TestDatabase(engine)
        defer { database.remove() }
        let databaseEngine = try await database.openEngine()
        try await Migrations.run(on: databaseEngine, through: Self.roundOneSchema)
        // Rows as the earlier release wrote them, in its columns.
        try await databaseEngine.transaction { db in
            for (id, owner, platform, tag) in [("phone", "alice", "fcm", "topic:sale"), ("laptop", "bob", "direct", "topic:news")] {
                try await db.insert(into: "installations")
                    .columns("id", "owner", "platform", "push_channel", "tags", "created_at", "updated_at")
                    .values(id, owner, platform, "\(id)-channel", "[\"\(tag)\"]", 1, 1).run()
                try await db.insert(into: "installation_tags").columns("installation_id", "tag")
                    .rows(["username:\(owner)", "installation:\(id)", "platform:\(platform)", tag].map { [SQLBind(id), SQLBind($0)] }).run()
            }
        }
        try await databaseEngine.close()

        let store = try await database.open()
        #expect(try await store.installations.installation(id: "phone")?.tags == ["topic:sale"])
        #expect(try await store.installations.audienceSize(try TagExpression(parsing: "topic:sale || topic:news")).installations == 2)
        #expect(try await store.installations.audienceSize(try TagExpression(parsing: "username:alice && platform:fcm")).installations == 1)
        try await store.installations.upsert(
            InstallationRecord(
                id: "eve-phone", owner: "eve", platform: .fcm, pushChannel: "phone-channel", tags: [], createdAt: .now, updatedAt: .now))
        #expect(try await store.installations.installation(id: "phone")?.isReplaced == true)
        try await store.close()
    }

    @Test(arguments: Engine.allCases) func outboxesWrittenBeforeDeliveriesWereTalliedAreCountedAfterTheUpgrade(_ engine: Engine) async throws {
        let database = try await TestDatabase(engine)
        defer { database.remove() }
        var store = try await database.open()
        for id in ["a1", "a2", "a3"] { try await store.register(id, owner: "alice") }
        let (notification, _) = try await store.send("username:alice")
        let jobs = try await store.outbox.claimDue(limit: 10, lease: 60)
        try await store.outbox.recordOutcomes([(jobs[0], .sent), (jobs[1], .failed(code: "hub.rejected", message: "no"))])
        try await store.close()
        // The schema of the release before the tallies, with the outbox that release wrote.
        let databaseEngine = try await database.openEngine()
        try await databaseEngine.transaction { db in
            try await db.drop(table: "delivery_tallies").run()
            try await db.drop(index: "deliveries_failures").run()
            try await db.raw(
                "CREATE INDEX deliveries_finished_by_notification ON deliveries (notification_id, state) WHERE state <> 'pending'"
            ).run()
            if engine == .postgresql {
                try await db.raw("ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey").run()
                try await db.raw("ALTER TABLE deliveries ADD PRIMARY KEY (id)").run()
                try await db.raw("ALTER TABLE deliveries ADD UNIQUE (notification_id, installation_id)").run()
            }
            try await db.drop(table: "delivery_sequences").run()
            try await db.drop(table: "sequence_claims").run()
            try await db.raw("ALTER TABLE deliveries DROP COLUMN in_sequence").run()
            for table in ["webhooks", "webhook_events", "webhook_messages", "webhook_attempts"] { try await db.drop(table: table).run() }
            try await db.drop(table: "fallbacks").run()
            try await db.drop(table: "installation_fetches").run()
            try await db.raw("ALTER TABLE notifications DROP COLUMN delivery_rate").run()
            try await db.drop(table: "delivery_paces").run()
            try await db.drop(table: "payload_egress").run()
            try await db.raw("ALTER TABLE notifications DROP COLUMN fallback_after").run()
            try await db.raw("ALTER TABLE feed_entries DROP COLUMN action_id").run()
            try await db.drop(table: "action_runs").run()
            for table in ["live_activities", "activity_start_tokens", "activity_update_tokens", "activity_deliveries"] {
                try await db.drop(table: table).run()
            }
            if engine == .postgresql {
                try await db.raw("CREATE INDEX deliveries_pending_due ON deliveries (due_at, id) WHERE state = 'pending'").run()
            }
            try await db.delete(from: "schema_migrations").where("version", .greaterThan, Self.beforeTallies).run()
        }
        try await databaseEngine.close()

        store = try await database.open()
        #expect(try await store.results.counts(notificationId: notification.id).tally == DeliveryTally(pending: 1, sent: 1, failed: 1))
        try await store.close()
    }
}
