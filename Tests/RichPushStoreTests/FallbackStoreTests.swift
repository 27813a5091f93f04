import Foundation
import Logging
import RichPushCore
import RichPushStore
import Testing

@Suite("Fallbacks in the store")
struct FallbackStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    /// Ten minutes, the fetch deadline of these notifications.
    let deadline: TimeInterval = 600

    /// Alice's phone (APNs) and tablet (FCM) sent a silent push of a notification with a fetch deadline, accepted by
    /// their hubs at `start + 1`.
    func sentToAlice(_ store: Store, pushStyle: PushStyle = .silent) async throws -> NotificationRecord {
        try await store.sentWithFetchDeadline(deadline, toAlices: [("phone", .apns), ("tablet", .fcm)], at: start, pushStyle: pushStyle)
    }

    @Test(arguments: Engine.allCases) func aSilentPushNotFetchedByItsDeadlineGetsOneAlertFallback(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAlice(store)
            #expect(try await store.fallbacks.claimDue(now: start + deadline, limit: 10, lease: 60).isEmpty)
            #expect(try await store.fallbacks.nextDeliveryDue(now: start + 2) == start + 1 + deadline)
            let batch = try await store.fallbacks.claimDue(now: start + 1 + deadline, limit: 10, lease: 60)
            #expect(batch.map(\.installationId).sorted() == ["phone", "tablet"])
            let jobs = PushComposer.jobs(of: batch)
            #expect(jobs.allSatisfy { $0.pushStyle == .alert && $0.notificationId == notification.id && $0.attempt == 1 })
            try await store.fallbacks.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: start + 2 + deadline)
            #expect(try await store.fallbacks.claimDue(now: start + 3 * deadline, limit: 10, lease: 60).isEmpty)
            #expect(try await store.results.counts(notificationId: notification.id).fallbacks == FallbackTally(sent: 2, fetchedAfter: 0))
        }
    }

    @Test(arguments: Engine.allCases) func theTimelineCountsFallbacksInTheStepTheirHubAcceptedThem(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAlice(store)
            let batch = try await store.fallbacks.claimDue(now: start + 1 + deadline, limit: 10, lease: 60)
            try await store.fallbacks.recordOutcomes(PushComposer.jobs(of: batch).map { ($0, DeliveryOutcome.sent) }, now: start + 2 + deadline)
            let buckets = try await store.results.timeline(notificationId: notification.id, from: start, to: start + 720, step: 300)
            #expect(buckets.map(\.fallbacks) == [0, 0, 2])
            #expect(buckets.map(\.sent) == [2, 0, 0])
        }
    }

    @Test(arguments: Engine.allCases) func aFetchOneSecondBeforeTheDeadlineOnAnyDeviceMeansNoFallbackOnEither(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAlice(store)
            try await store.feeds.recordFetches([PayloadFetch(notificationId: notification.id, username: "alice", at: start + deadline)])
            #expect(try await store.fallbacks.claimDue(now: start + 1 + deadline, limit: 10, lease: 60).isEmpty)
            #expect(try await store.fallbacks.nextDeliveryDue(now: start + 2 + deadline) == nil)
            #expect(try await store.results.counts(notificationId: notification.id).fallbacks == FallbackTally())
        }
    }

    @Test(arguments: Engine.allCases) func aUsersFirstFetchEndsHerFallbacksBeforeTheirDeadline(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAlice(store)
            try await store.register("desk", owner: "bob", platform: .apns, tags: [])
            let (toBob, _) = try await store.send("username:bob", deliverAt: start, fallbackAfter: deadline)
            let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: start + 100)
            try await store.feeds.recordFetches([PayloadFetch(notificationId: notification.id, username: "alice", at: start + 105)])
            // Long before the deadline nothing of Alice's is left to look at (hers fell due 99 s before Bob's); Bob, who
            // fetched nothing, still has his.
            #expect(try await store.fallbacks.nextDeliveryDue(now: start + 106) == start + 100 + deadline)
            let batch = try await store.fallbacks.claimDue(now: start + 100 + deadline, limit: 10, lease: 60)
            #expect(batch.map(\.notificationId) == [toBob.id])
        }
    }

    @Test(arguments: Engine.allCases) func aDismissedOrRecalledNotificationGetsNoFallback(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let dismissed = try await sentToAlice(store)
            _ = try await store.feeds.updateState(
                username: "alice", notificationId: dismissed.id, readState: nil, userActionState: .dismissed, origin: "phone", now: start + 2)
            let (recalled, _) = try await store.send("username:alice", deliverAt: start, fallbackAfter: deadline)
            let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: start + 1)
            _ = try await store.notifications.remove(id: recalled.id, audit: { _ in nil }, now: start + 2)
            #expect(try await store.fallbacks.claimDue(now: start + 1 + deadline, limit: 10, lease: 60).isEmpty)
        }
    }

    @Test(arguments: Engine.allCases) func aPushRecordedTwiceMakesOneFallback(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice", platform: .apns)
            _ = try await store.send("username:alice", deliverAt: start, fallbackAfter: deadline)
            let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes([(jobs[0], .sent)], now: start + 1)
            try await store.outbox.recordOutcomes([(jobs[0], .sent)], now: start + 5)
            #expect(try await store.fallbacks.claimDue(now: start + 10 + deadline, limit: 10, lease: 60).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func directDevicesAndAlertsGetNoFallback(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("laptop", owner: "bob", platform: .direct)
            _ = try await store.send("username:bob", deliverAt: start, fallbackAfter: deadline)
            _ = try await sentToAlice(store, pushStyle: .alert)
            let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: start + 1)
            #expect(try await store.fallbacks.claimDue(now: start + 10 + deadline, limit: 10, lease: 60).isEmpty)
        }
    }

    @Test(arguments: Engine.allCases) func aFallbackWhoseClaimerDiedGoesAgainOnlyOnceItsLeaseRunsOut(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await sentToAlice(store)
            let due = start + 1 + deadline
            #expect(try await store.fallbacks.claimDue(now: due, limit: 10, lease: 60).count == 2)
            #expect(try await store.fallbacks.claimDue(now: due + 59, limit: 10, lease: 60).isEmpty)
            let again = try await store.fallbacks.claimDue(now: due + 61, limit: 10, lease: 60)
            #expect(again.map(\.attempt) == [2, 2])
        }
    }

    @Test(arguments: Engine.allCases) func aFetchAfterTheFallbackCountsAsFetchedAfter(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAlice(store)
            let batch = try await store.fallbacks.claimDue(now: start + 1 + deadline, limit: 10, lease: 60)
            try await store.fallbacks.recordOutcomes(
                [(batch[0], .sent), (batch[1], .retry(after: 30, code: "hub.busy", message: "later"))], now: start + 2 + deadline)
            try await store.feeds.recordFetches([PayloadFetch(notificationId: notification.id, username: "alice", at: start + 9 + deadline)])
            #expect(try await store.results.counts(notificationId: notification.id).fallbacks == FallbackTally(sent: 1, fetchedAfter: 1))
            // The one waiting to be retried is not sent: she has fetched meanwhile.
            #expect(try await store.fallbacks.claimDue(now: start + 60 + deadline, limit: 10, lease: 60).isEmpty)
        }
    }

    @Test func twoProcessesClaimingFallbacksAtOnceEachTakeOthers() async throws {
        try await withStores(.postgresql, count: 2) { stores in
            for phone in 0..<20 { try await stores[0].register("phone-\(phone)", owner: "user\(phone)", platform: .apns, tags: ["topic:sale"]) }
            _ = try await stores[0].send("topic:sale", deliverAt: start, fallbackAfter: deadline)
            let jobs = try await stores[0].claimJobs(now: start, limit: 100, lease: 60)
            try await stores[0].outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: start + 1)
            async let first = stores[0].fallbacks.claimDue(now: start + 1 + deadline, limit: 12, lease: 60)
            async let second = stores[1].fallbacks.claimDue(now: start + 1 + deadline, limit: 12, lease: 60)
            let claimed = try await first.map(\.installationId) + second.map(\.installationId)
            #expect(claimed.count == 20)
            #expect(Set(claimed).count == 20)
        }
    }

    @Test func reopeningAnExclusiveStoreFreesTheFallbacksTheDeadProcessHeld() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await Store.openSQLite(directory: directory.path, logger: Logger(label: "test"))
        _ = try await sentToAlice(first)
        #expect(try await first.fallbacks.claimDue(now: start + 1 + deadline, limit: 10, lease: 600).count == 2)
        try await first.close()
        let second = try await Store.openSQLite(directory: directory.path, logger: Logger(label: "test"))
        #expect(try await second.fallbacks.claimDue(now: start + 2 + deadline, limit: 10, lease: 600).count == 2)
        try await second.close()
    }
}
