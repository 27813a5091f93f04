import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("How far a notification reached")
struct ReachStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    var pushed: Date { start + 1 }

    @Test(arguments: Engine.allCases) func reachCountsEachDeviceByHowSoonAfterItsPushItOrItsUserFetched(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("alice-phone", owner: "alice", platform: .apns)
            try await store.register("alice-tablet", owner: "alice", platform: .fcm)
            try await store.register("bob-phone", owner: "bob", platform: .apns)
            try await store.register("carol-phone", owner: "carol", platform: .apns)
            try await store.register("dave-phone", owner: "dave", platform: .apns)
            let (notification, _) = try await store.send("username:alice || username:bob || username:carol || username:dave", deliverAt: start)
            let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: pushed)
            let id = notification.id
            try await store.feeds.recordFetches([PayloadFetch(notificationId: id, username: "alice", installationId: "alice-phone", at: pushed + 30)])
            try await store.feeds.recordFetches([PayloadFetch(notificationId: id, username: "bob", at: pushed + 300)])
            _ = try await store.feeds.recordReceipt(notificationId: id, installationId: "carol-phone", event: .displayed, now: pushed + 7200)
            let reach = try await store.results.reach(notificationId: id).total
            // Alice's tablet counts her fetch on her phone; Carol's phone showed the alert without fetching.
            #expect(
                reach
                    == Reach(
                        fetchedWithin1m: 2, fetchedWithin10m: 3, fetchedWithin1h: 3, reached: 4, notReached: 1, fetchSecondsP50: 30,
                        fetchSecondsP90: 300))
        }
    }

    @Test(arguments: Engine.allCases) func aNotificationNobodyFetchedHasNoFetchTimes(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice", platform: .apns)
            try await store.register("laptop", owner: "alice", platform: .direct)
            let (notification, _) = try await store.send("username:alice", deliverAt: start)
            let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(
                [(jobs[0], .sent), (jobs[1], .failed(code: "apns.badDeviceToken", message: "no"))], now: pushed)
            #expect(try await store.results.reach(notificationId: notification.id).total == Reach(notReached: 1))
        }
    }

    @Test(arguments: Engine.allCases) func eachVariantOfANotificationNobodyFetchedCountsItsDevicesSentUnreached(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let variants = [
                Variant(name: "A", weight: 50, message: "Twenty percent off", content: PushContent(title: "Sale")),
                Variant(name: "B", weight: 50, message: "Free shipping", content: PushContent(title: "Shipping")),
            ]
            let users = (0..<10).map { "user\($0)" }
            for user in users { try await store.register("\(user)-phone", owner: user, platform: .apns) }
            let id = try await store.notifications.create(
                NotificationDraft(
                    message: "Sale", payload: .text("t"),
                    audience: try TagExpression(parsing: users.map { "username:\($0)" }.joined(separator: " || ")),
                    pushStyle: .silent, deliverAt: start, expiresAt: nil, createdBy: "mark", idempotencyKey: nil, variants: variants)
            ).notification.id
            let jobs = try await store.claimJobs(now: start, limit: 100, lease: 60)
            try await store.outbox.recordOutcomes(jobs.dropFirst().map { ($0, DeliveryOutcome.sent) }, now: pushed)
            let sent = jobs.dropFirst().map(\.owner)
            let inA = sent.count { Variant.assigned(to: $0, of: id, among: variants)?.name == "A" }
            let reach = try await store.results.reach(notificationId: id)
            #expect(reach.total == Reach(notReached: 9))
            #expect(reach.variants.mapValues(\.notReached).filter { $0.value > 0 } == ["A": inA, "B": 9 - inA].filter { $0.value > 0 })
            #expect(reach.variants.values.allSatisfy { $0.reached == 0 && $0.fetchSecondsP50 == nil })
        }
    }

    @Test(arguments: Engine.allCases) func aFetchIsTimedToATenthOfASecondUnderAMinuteToTheSecondUnderAnHourAndToTheMinuteBeyond(
        _ engine: Engine
    ) async throws {
        try await withStore(engine) { store in
            let delays: [TimeInterval] = [0.25, 59.97, 61.5, 3599.9, 3725]
            for user in delays.indices { try await store.register("phone-\(user)", owner: "user\(user)", platform: .apns) }
            let (notification, _) = try await store.send(
                "username:user0 || username:user1 || username:user2 || username:user3 || username:user4", deliverAt: start)
            let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: pushed)
            for (user, delay) in delays.enumerated() {
                try await store.feeds.recordFetches([PayloadFetch(notificationId: notification.id, username: "user\(user)", at: pushed + delay)])
            }
            let reach = try await store.results.reach(notificationId: notification.id).total
            #expect(reach.fetchedWithin1m == 2)
            #expect(reach.fetchedWithin1h == 4)
            #expect(reach.fetchSecondsP50 == 61)
            #expect(reach.fetchSecondsP90 == 3720)
        }
    }
}
