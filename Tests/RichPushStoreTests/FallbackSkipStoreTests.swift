import Foundation
import RichPushCore
import RichPushStore
import Testing

/// What keeps a due fallback from going: anything that shows its user has the notification, or that it should no
/// longer reach the device.
@Suite("What ends a fallback unsent")
struct FallbackSkipStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let deadline: TimeInterval = 600
    var due: Date { start + 1 + deadline }

    /// What happens to Alice's notification, or to her phone, after the silent push and before the deadline.
    enum Meanwhile: String, CaseIterable, CustomTestStringConvertible {
        case fetchedOnHerTablet, displayedOnHerTablet, read, opened, dismissed, removedFromHerFeed, recalled, expired, phoneGone,
            phoneRemoved, phoneRegisteredByBob

        var testDescription: String { rawValue }

        func happen(to notification: NotificationRecord, in store: Store, at now: Date) async throws {
            let id = notification.id
            switch self {
            case .fetchedOnHerTablet:
                try await store.feeds.recordFetches([PayloadFetch(notificationId: id, username: "alice", installationId: "tablet", at: now)])
            case .displayedOnHerTablet:
                _ = try await store.feeds.recordReceipt(notificationId: id, installationId: "tablet", event: .displayed, now: now)
            case .read, .opened, .dismissed:
                _ = try await store.feeds.updateState(
                    username: "alice", notificationId: id, readState: self == .read ? .read : nil,
                    userActionState: self == .opened ? .activated : self == .dismissed ? .dismissed : nil, origin: "tablet", now: now)
            case .removedFromHerFeed:
                _ = try await store.feeds.remove(username: "alice", notificationId: id, origin: "tablet", now: now)
            case .recalled:
                _ = try await store.notifications.remove(id: id, audit: { _ in nil }, now: now)
            case .expired:
                break
            case .phoneGone:
                // APNs answers a later push to the phone 410.
                _ = try await store.send("username:alice", deliverAt: now)
                let phone = try await store.claimJobs(now: now, limit: 10, lease: 60).filter { $0.installationId == "phone" }
                try await store.outbox.recordOutcomes(phone.map { ($0, .deviceGone(code: "apns.unregistered", message: "gone")) }, now: now)
            case .phoneRemoved:
                _ = try await store.installations.delete(id: "phone", now: now)
            case .phoneRegisteredByBob:
                _ = try await store.installations.delete(id: "phone", now: now)
                try await store.register("phone", owner: "bob", platform: .apns)
            }
        }
    }

    @Test(arguments: Engine.allCases, Meanwhile.allCases)
    func aDueFallbackIsNotSentAfter(_ engine: Engine, _ meanwhile: Meanwhile) async throws {
        try await withStore(engine) { store in
            let notification = try await store.sentWithFetchDeadline(
                deadline, toAlices: [("phone", .apns), ("tablet", .direct)], at: start, expiresAt: meanwhile == .expired ? due - 1 : nil)
            try await meanwhile.happen(to: notification, in: store, at: due - 1)
            #expect(try await store.fallbacks.claimDue(now: due, limit: 10, lease: 60).isEmpty)
            #expect(try await store.fallbacks.nextDeliveryDue(now: due) == nil)
            #expect(try await store.results.counts(notificationId: notification.id).fallbacks == FallbackTally())
        }
    }

    /// Alice's phone, sent a silent push at `start + 1` of a notification with a fetch deadline.
    func sentToAlicesPhone(_ store: Store, purpose: NotificationPurpose = .transactional) async throws -> NotificationRecord {
        try await store.sentWithFetchDeadline(deadline, toAlices: [("phone", .apns)], at: start, purpose: purpose)
    }

    @Test(arguments: Engine.allCases) func aRecallEndsTheFallbacksStillToComeAtOnce(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAlicesPhone(store)
            #expect(try await store.fallbacks.nextDeliveryDue(now: start + 2) == due)
            _ = try await store.notifications.remove(id: notification.id, audit: { _ in nil }, now: start + 2)
            #expect(try await store.fallbacks.nextDeliveryDue(now: start + 2) == nil)
        }
    }

    @Test(arguments: Engine.allCases) func aMarketersFallbackDueInQuietHoursWaitsUntilTheyEndOnTheDevicesClock(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await sentToAlicesPhone(store, purpose: .marketing)
            // The fallback falls due at 08:10:01 UTC, inside the device's quiet hours.
            let mornings = CampaignLimits(quietHours: QuietHours(parsing: "08:00-09:00")!)
            let nineOClock = start + 3600
            #expect(
                try await store.fallbacks.claimDue(
                    recording: [(job: ClaimedDelivery, outcome: DeliveryOutcome)](), now: due, limit: 10, lease: 60, limits: mornings
                ).isEmpty)
            #expect(try await store.fallbacks.nextDeliveryDue(now: due) == nineOClock)
            let batch = try await store.fallbacks.claimDue(
                recording: [(job: ClaimedDelivery, outcome: DeliveryOutcome)](), now: nineOClock, limit: 10, lease: 60, limits: mornings)
            #expect(batch.map(\.installationId) == ["phone"])
            #expect(batch.map(\.attempt) == [1])
        }
    }

    @Test(arguments: Engine.allCases) func quietHoursDoNotHoldTheFallbackOfATransactionalNotification(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await sentToAlicesPhone(store, purpose: .transactional)
            let mornings = CampaignLimits(quietHours: QuietHours(parsing: "08:00-09:00")!)
            let batch = try await store.fallbacks.claimDue(
                recording: [(job: ClaimedDelivery, outcome: DeliveryOutcome)](), now: due, limit: 10, lease: 60, limits: mornings)
            #expect(batch.map(\.installationId) == ["phone"])
        }
    }
}
