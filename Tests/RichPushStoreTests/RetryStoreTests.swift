import Foundation
import RichPushCore
import RichPushStore
import Testing

/// Failed deliveries made pending again, on both engines.
@Suite("Retrying failed deliveries in the store")
struct RetryStoreTests {
    /// Sends to alice's laptop and phone and records the phone's delivery as `phone`'s outcome, the laptop's as sent.
    func sendFailingThePhone(_ store: Store, phone outcome: DeliveryOutcome) async throws -> Int64 {
        try await store.register("laptop", owner: "alice")
        try await store.register("phone", owner: "alice")
        let id = try await store.send("username:alice").notification.id
        let jobs = try await store.claimJobs(limit: 10, lease: 60)
        try await store.outbox.recordOutcomes(jobs.map { ($0, $0.installationId == "phone" ? outcome : .sent) })
        return id
    }

    @Test(arguments: Engine.allCases) func aRetriedDeliveryIsPendingDueAtOnceWithItsAttemptsCountedAnew(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await sendFailingThePhone(store, phone: .failed(code: "apns.badPriority", message: "400"))
            #expect(try await store.outbox.retryFailed(of: id, audit: { _ in nil }, now: .now) == .retried(1))
            #expect(try await store.results.counts(notificationId: id).tally == DeliveryTally(pending: 1, sent: 1))
            let again = try await store.claimJobs(limit: 10, lease: 60)
            #expect(again.map(\.installationId) == ["phone"])
            #expect(again.first?.attempt == 1)
        }
    }

    @Test(arguments: Engine.allCases) func aSecondRetryFindsNothingWhileTheFirstIsPending(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await sendFailingThePhone(store, phone: .failed(code: "apns.badPriority", message: "400"))
            _ = try await store.outbox.retryFailed(of: id, audit: { _ in nil }, now: .now)
            #expect(try await store.outbox.retryFailed(of: id, audit: { _ in nil }, now: .now) == .retried(0))
            #expect(try await store.results.counts(notificationId: id).tally == DeliveryTally(pending: 1, sent: 1))
        }
    }

    @Test(arguments: Engine.allCases) func aDeliveryToADeviceAHubReportedGoneStaysFailed(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await sendFailingThePhone(store, phone: .deviceGone(code: "apns.unregistered", message: "410"))
            #expect(try await store.outbox.retryFailed(of: id, audit: { _ in nil }, now: .now) == .retried(0))
            #expect(try await store.results.counts(notificationId: id).tally == DeliveryTally(sent: 1, failed: 1))
        }
    }

    @Test(arguments: Engine.allCases) func aRecalledOrExpiredNotificationIsNotRetried(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let recalled = try await sendFailingThePhone(store, phone: .failed(code: "c", message: "m"))
            _ = try await store.notifications.remove(id: recalled, audit: { _ in nil }, now: .now)
            #expect(try await store.outbox.retryFailed(of: recalled, audit: { _ in nil }, now: .now) == .removed)
            let expiring = try await store.send("username:alice", expiresAt: .now + 60).notification.id
            #expect(try await store.outbox.retryFailed(of: expiring, audit: { _ in nil }, now: .now + 120) == .expired)
            #expect(try await store.outbox.retryFailed(of: 999_999, audit: { _ in nil }, now: .now) == .notFound)
        }
    }

    @Test(arguments: Engine.allCases) func aPostponedDeliveryKeepsTheAttemptsItHadAndFallsDueAfterItsWait(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice")
            _ = try await store.send("username:alice")
            let now = Date.now
            let first = try await store.claimJobs(now: now, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(first.map { ($0, .postponed(after: 30, code: "apns.unreachable", message: "held back")) }, now: now)
            #expect(try await store.claimJobs(now: now + 10, limit: 10, lease: 60).isEmpty)
            let second = try await store.claimJobs(now: now + 31, limit: 10, lease: 60)
            #expect(second.map(\.attempt) == [1], "the postponed claim counted an attempt")
        }
    }
}
