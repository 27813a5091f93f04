import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Webhooks in the store")
struct WebhookStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @discardableResult
    func createWebhook(_ store: Store, _ id: String = "wh_1", events: [WebhookEventType]) async throws -> WebhookRecord {
        try await store.webhooks.create(
            id: id, url: "https://hooks.example.com/\(id)", events: events, secret: "whsec_secret", createdBy: "admin", audit: nil, now: start)
    }

    /// Alice's two direct devices and a notification to them, claimed; answers the jobs.
    func claimedDeliveries(_ store: Store) async throws -> [DeliveryJob] {
        try await store.register("laptop", owner: "alice")
        try await store.register("desktop", owner: "alice")
        _ = try await store.send("username:alice", deliverAt: start)
        return try await store.claimJobs(now: start, limit: 10, lease: 60)
    }

    @Test(arguments: Engine.allCases) func anOutcomeQueuesItsEventOnlyForWebhooksThatListenToIt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await createWebhook(store, "wh_sent", events: [.deliverySent])
            try await createWebhook(store, "wh_failed", events: [.deliveryFailed])
            let jobs = try await claimedDeliveries(store)
            try await store.outbox.recordOutcomes([(jobs[0], .sent), (jobs[1], .failed(code: "direct.gone", message: "gone"))], now: start + 1)
            let messages = try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 2)
            let sent = try #require(messages.first { $0.webhookId == "wh_sent" })
            #expect(sent.events.map(\.type) == [.deliverySent])
            #expect(sent.events[0].data.contains(#""installationId":"\#(jobs[0].installationId)""#))
            let failed = try #require(messages.first { $0.webhookId == "wh_failed" })
            #expect(failed.events.map(\.type) == [.deliveryFailed])
            #expect(failed.events[0].data.contains(#""errorCode":"direct.gone""#))
        }
    }

    @Test(arguments: Engine.allCases) func aNotificationCompletesOnceItsLastDeliveryFinishes(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await createWebhook(store, events: [.notificationCompleted])
            let jobs = try await claimedDeliveries(store)
            try await store.outbox.recordOutcomes([(jobs[0], .sent)], now: start + 1)
            #expect(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 1).isEmpty)
            try await store.outbox.recordOutcomes([(jobs[1], .sent), (jobs[1], .sent)], now: start + 2)
            let messages = try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 2)
            #expect(messages.flatMap(\.events).map(\.type) == [.notificationCompleted])
            #expect(messages.first?.events.first?.data.contains(#""state":"delivered""#) == true)
        }
    }

    @Test(arguments: Engine.allCases) func aNotificationThatExpiredBeforeItsDeliveriesWentCompletesAsExpired(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await createWebhook(store, events: [.notificationCompleted])
            try await store.register("laptop", owner: "alice")
            _ = try await store.send("username:alice", deliverAt: .now + 10, expiresAt: .now + 20)
            #expect(try await store.outbox.claimDue(now: .now + 30, limit: 10, lease: 60).isEmpty)
            let events = try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: .now + 31).flatMap(\.events)
            #expect(events.map(\.type) == [.notificationCompleted])
            #expect(events.first?.data.contains(#""state":"expired""#) == true)
        }
    }

    @Test(arguments: Engine.allCases) func aMessageClaimedByAProcessThatDiedGoesAgainUnderItsIdWhenTheLeaseEnds(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await createWebhook(store, events: [.deliverySent])
            let jobs = try await claimedDeliveries(store)
            try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) }, now: start + 1)
            let first = try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 2)
            #expect(first.count == 1)
            #expect(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 30).isEmpty)
            let again = try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 63)
            #expect(again.map(\.id) == first.map(\.id))
            #expect(again.first?.events == first.first?.events)
        }
    }

    @Test(arguments: Engine.allCases) func aWebhookHasOneMessageAtATimeAndLaterEventsWaitForTheNext(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await createWebhook(store, events: [.deliverySent])
            let jobs = try await claimedDeliveries(store)
            try await store.outbox.recordOutcomes([(jobs[0], .sent)], now: start + 1)
            let first = try #require(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 1).first)
            try await store.outbox.recordOutcomes([(jobs[1], .sent)], now: start + 2)
            let failure = WebhookAttemptResult(status: 500, error: nil, duration: 0.01)
            try await store.webhooks.record(failure, of: first, then: .retry(at: start + 10), now: start + 2)
            #expect(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 5).isEmpty)
            let retried = try #require(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 10).first)
            #expect(retried.id == first.id)
            #expect(retried.attempts == 1)
            #expect(retried.events.count == 1)
            try await store.webhooks.record(
                WebhookAttemptResult(status: 204, error: nil, duration: 0.01), of: retried, then: .delivered, now: start + 11)
            let next = try #require(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 11).first)
            #expect(next.id != first.id)
            #expect(next.events.count == 1)
            #expect(try await store.webhooks.attempts(webhookId: "wh_1", limit: 10).map(\.result.status) == [204, 500])
        }
    }

    @Test(arguments: Engine.allCases) func aDisabledWebhookGetsNoEventsAndDropsThoseThatWaited(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await createWebhook(store, events: [.deliverySent])
            let jobs = try await claimedDeliveries(store)
            try await store.outbox.recordOutcomes([(jobs[0], .sent)], now: start + 1)
            let message = try #require(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 1).first)
            try await store.webhooks.record(
                WebhookAttemptResult(status: 410, error: nil, duration: 0.01), of: message, then: .disable(reason: "gone"), now: start + 2)
            try await store.outbox.recordOutcomes([(jobs[1], .sent)], now: start + 3)
            #expect(try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 100).isEmpty)
            let webhook = try #require(try await store.webhooks.webhook(id: "wh_1"))
            #expect(webhook.disabledAt == start + 2)
            #expect(webhook.disabledReason == "gone")
        }
    }

    @Test(arguments: Engine.allCases) func stateChangesFetchesAndReceiptsBecomeEvents(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await createWebhook(
                store, events: [.payloadFetched, .notificationDisplayed, .notificationOpened, .notificationDismissed])
            try await store.register("laptop", owner: "alice")
            let id = try await store.send("username:alice").notification.id
            try await store.feeds.recordFetches([PayloadFetch(notificationId: id, username: "alice", at: start)])
            try await store.feeds.recordFetches([PayloadFetch(notificationId: id, username: "alice", at: start + 1)])
            _ = try await store.feeds.recordReceipt(notificationId: id, installationId: "laptop", event: .displayed, now: start + 2)
            _ = try await store.feeds.updateState(
                username: "alice", notificationId: id, readState: .read, userActionState: .activated, origin: "laptop", now: start + 3)
            _ = try await store.feeds.updateState(
                username: "alice", notificationId: id, readState: nil, userActionState: .dismissed, origin: nil, now: start + 4)
            let events = try await store.webhooks.claimDueMessages(maximumEvents: 100, lease: 60, now: start + 5).flatMap(\.events)
            #expect(events.map(\.type) == [.payloadFetched, .notificationDisplayed, .notificationOpened, .notificationDismissed])
            #expect(events[1].data.contains(#""username":"alice""#))
            #expect(events[2].data.contains(#""installationId":"laptop""#))
        }
    }
}
