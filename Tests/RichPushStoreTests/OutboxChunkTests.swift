import Foundation
import RichPushCore
import RichPushStore
import SQLKit
import Synchronization
import Testing

/// A large outbox is written in chunks after its notification, so its first pushes go out while its last deliveries
/// are written; whoever writes it, every addressed installation gets one delivery.
@Suite("Outboxes written in chunks")
struct OutboxChunkTests {
    /// More installations than the first chunk holds, tagged for one audience.
    static let count = 2_600

    func registerMany(
        _ store: Store, platform: Platform = .direct, count: Int = Self.count, tags: (Int) -> [String] = { _ in ["topic:sale"] }
    ) async throws {
        let now = Date.now
        let installations = (0..<count).map { index in
            InstallationRecord(
                id: String(format: "d%05d", index), owner: "user\(index % 300)", platform: platform,
                pushChannel: platform == .apns ? String(format: "%064x", index) : "channel-\(index)", tags: tags(index), createdAt: now,
                updatedAt: now)
        }
        _ = try await store.installations.importAll(installations)
    }

    /// The first chunk, a whole later chunk and a part of one.
    static let severalChunks = 2_000 + 10_000 + 600

    /// A notification to ``severalChunks`` installations, its first chunk written.
    func sendToSeveralChunks(_ store: Store) async throws -> NotificationRecord {
        try await registerMany(store, count: Self.severalChunks)
        return try await store.send("topic:sale").notification
    }

    func deliveryCount(_ store: Store, of id: Int64) async throws -> Int {
        try await store.results.counts(notificationId: id).tally.targeted
    }

    @Test(arguments: Engine.allCases)
    func theFirstChunkIsWrittenWithItsNotificationAndTheRestAfterEachInstallationOnce(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await registerMany(store)
            let (notification, _) = try await store.send("topic:sale")
            #expect(!notification.outboxComplete)
            let first = try await deliveryCount(store, of: notification.id)
            #expect(first > 0 && first < Self.count)
            // Recipients have their feed entries at once, deliveries written or not.
            #expect(try await store.notifications.isRecipient(notificationId: notification.id, username: "user299"))
            try await store.outbox.complete(of: notification.id)
            #expect(try await deliveryCount(store, of: notification.id) == Self.count)
            #expect(try await store.notifications.notification(id: notification.id)?.outboxComplete == true)
            let jobs = try await store.outbox.claimDue(limit: 10_000, lease: 60)
            #expect(Set(jobs.map(\.installationId)).count == Self.count)
        }
    }

    @Test(arguments: Engine.allCases)
    func eachLaterChunkContinuesWhereTheLastEndedSoEveryInstallationGetsOneDelivery(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let count = Self.severalChunks
            let notification = try await sendToSeveralChunks(store)
            let chunks = Atomic(0)
            try await store.outbox.complete(of: notification.id) { chunks.add(1, ordering: .relaxed) }
            #expect(chunks.load(ordering: .relaxed) == 2)
            #expect(try await deliveryCount(store, of: notification.id) == count)
            let jobs = try await store.outbox.claimDue(limit: 20_000, lease: 60)
            #expect(jobs.count == count)
            #expect(Set(jobs.map(\.installationId)).count == count)
        }
    }

    @Test(arguments: Engine.allCases)
    func deliveriesWrittenAfterTheClaimsReachedTheEndOfTheOutboxAreEachClaimedOnceWritten(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await registerMany(store)
            let notification = try await store.send("topic:sale").notification
            let first = try await store.outbox.claimDue(limit: 10_000, lease: 60)
            #expect(try await store.outbox.claimDue(limit: 10_000, lease: 60).isEmpty)
            try await store.outbox.complete(of: notification.id)
            let rest = try await store.outbox.claimDue(limit: 10_000, lease: 60)
            #expect(first.count + rest.count == Self.count)
            #expect(Set((first.deliveries + rest.deliveries).map(\.installationId)).count == Self.count)
            #expect(try await store.outbox.claimDue(limit: 10_000, lease: 60).isEmpty)
        }
    }

    @Test(arguments: Engine.allCases)
    func anAudienceOfSeveralTagsReachesEachInstallationOnceWhateverChunkItFallsIn(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let count = Self.severalChunks
            // A third with each tag alone, a third with both, so the tags' chunks end at different installations.
            try await registerMany(store, count: count) { [["topic:a"], ["topic:b"], ["topic:a", "topic:b"]][$0 % 3] }
            let notification = try await store.send("topic:a || topic:b").notification
            try await store.outbox.complete(of: notification.id)
            let jobs = try await store.outbox.claimDue(limit: 20_000, lease: 60)
            #expect(jobs.count == count)
            #expect(Set(jobs.map(\.installationId)).count == count)
        }
    }

    @Test func aCompletedOutboxIsAnalyzedSoPostgreSQLPlansItsExportByTheOutboxSize() async throws {
        try await withStoreAndEngine(.postgresql) { store, engine in
            let notification = try await sendToSeveralChunks(store)
            try await store.outbox.complete(of: notification.id)
            #expect(try await plannedRows(of: "deliveries", in: engine) == Self.severalChunks)
        }
    }

    @Test func onSQLiteAPageOfResultsIsReadInIdOrderWithoutSortingTheWholeOutbox() async throws {
        let plan = try await planOfAPageOfResults(.sqlite)
        #expect(plan.contains { $0.contains("deliveries_by_notification") })
        #expect(!plan.contains { $0.contains("TEMP B-TREE") })
    }

    @Test func onPostgreSQLAPageOfResultsIsReadInIdOrderThroughTheOutboxKey() async throws {
        let plan = try await planOfAPageOfResults(.postgresql)
        #expect(plan.contains { $0.contains("deliveries_pkey") })
        #expect(!plan.contains { $0.contains("Sort") })
    }

    /// The lines of the engine's plan for a page of the results of an outbox written in several chunks.
    private func planOfAPageOfResults(_ kind: Engine) async throws -> [String] {
        var plan: [String] = []
        try await withStoreAndEngine(kind) { store, engine in
            let notification = try await sendToSeveralChunks(store)
            try await store.outbox.complete(of: notification.id)
            let (explain, column) = kind == .sqlite ? ("EXPLAIN QUERY PLAN", "detail") : ("EXPLAIN", "QUERY PLAN")
            plan = try await engine.read { db in
                try await db.raw(
                    """
                    \(unsafeRaw: explain) SELECT id FROM deliveries WHERE notification_id = \(bind: notification.id) AND id > 5000
                    ORDER BY id LIMIT 1000
                    """
                ).all().map { try $0.decode(column: column, as: String.self) }
            }
        }
        return plan
    }

    @Test(arguments: Engine.allCases)
    func aWriterStoppedBetweenChunksLeavesTheRestToTheNextOne(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let count = Self.severalChunks
            let notification = try await sendToSeveralChunks(store)
            let stopped = await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await store.outbox.complete(of: notification.id)
            }.result
            #expect(throws: CancellationError.self) { try stopped.get() }
            #expect(try await store.notifications.notification(id: notification.id)?.outboxComplete == false)
            #expect(try await deliveryCount(store, of: notification.id) < count)
            try await store.outbox.complete(of: notification.id)
            #expect(try await deliveryCount(store, of: notification.id) == count)
        }
    }

    @Test(arguments: Engine.allCases)
    func anOutboxWhoseWriterFellSilentIsCompletedByAnotherProcessAfterALease(_ engine: Engine) async throws {
        try await withStores(engine, count: 2) { stores in
            try await registerMany(stores[0])
            let now = Date.now
            let (notification, _) = try await stores[0].send("topic:sale")
            #expect(try await stores[1].outbox.abandoned(stale: 60, now: now + 30).isEmpty)
            #expect(try await stores[1].outbox.abandoned(stale: 60, now: now + 61) == [notification.id])
            // Taken: no other process takes it over until it falls silent again.
            #expect(try await stores[0].outbox.abandoned(stale: 60, now: now + 62).isEmpty)
            try await stores[1].outbox.complete(of: notification.id, now: now + 62)
            #expect(try await deliveryCount(stores[0], of: notification.id) == Self.count)
        }
    }

    @Test(arguments: Engine.allCases)
    func aNotificationCanceledWhileItsOutboxIsWrittenGetsNoMoreDeliveries(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await registerMany(store)
            let (notification, _) = try await store.send("topic:sale", deliverAt: .now + 3600)
            let first = try await deliveryCount(store, of: notification.id)
            #expect(try await store.notifications.remove(id: notification.id)?.outcome == .canceled)
            try await store.outbox.complete(of: notification.id)
            #expect(try await deliveryCount(store, of: notification.id) == first)
            #expect(try await store.notifications.notification(id: notification.id)?.outboxComplete == true)
        }
    }

    @Test(arguments: Engine.allCases)
    func anAudienceHubTakesANotificationOnlyOnceItsOutboxIsWhole(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await registerMany(store, platform: .apns)
            // Written before the audience hub was configured: on PostgreSQL its deliveries are in the sequence.
            let (notification, _) = try await store.send("topic:sale")
            let claimer = store.withAPNsSentToWholeAudiences
            #expect(try await claimer.outbox.claimDue(limit: 100, lease: 60).isEmpty)
            try await store.outbox.complete(of: notification.id)
            let audience = try await claimer.outbox.claimDue(limit: 100, lease: 60)
            #expect(audience.count == Self.count)
        }
    }
}
