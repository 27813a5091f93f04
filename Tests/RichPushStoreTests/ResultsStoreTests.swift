import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("A notification's results in the store")
struct ResultsStoreTests {
    static func utc(_ text: String) -> Date { Timestamp.parse(text)! }
    static let created = utc("2026-11-02T10:00:00Z")

    /// Alice's laptop and phone and Bob's tablet get one notification at 10:00; sent at 10:00:30, Alice fetches it at
    /// 10:01:10, her laptop displays it at 10:02:00 and she opens it at 10:02:30.
    func campaign(in store: Store) async throws -> Int64 {
        try await store.register("laptop", owner: "alice")
        try await store.register("phone", owner: "alice")
        try await store.register("tablet", owner: "bob")
        let id = try await store.notifications.create(
            NotificationDraft(
                message: "Sale", payload: .text("t"), audience: try TagExpression(parsing: "username:alice || username:bob"),
                pushStyle: .silent, deliverAt: Self.created, expiresAt: nil, createdBy: "mark", idempotencyKey: nil),
            now: Self.created
        ).notification.id
        let sentAt = Self.utc("2026-11-02T10:00:30Z")
        let jobs = try await store.outbox.claimDue(now: sentAt, limit: 10, lease: 60)
        try await store.outbox.recordOutcomes(
            jobs.map { ($0, $0.installationId == "tablet" ? .failed(code: "apns.BadDeviceToken", message: "bad token") : .sent) }, now: sentAt)
        try await store.feeds.recordFetches([PayloadFetch(notificationId: id, username: "alice", at: Self.utc("2026-11-02T10:01:10Z"))])
        _ = try await store.feeds.recordReceipt(
            notificationId: id, installationId: "laptop", event: .displayed, now: Self.utc("2026-11-02T10:02:00Z"))
        _ = try await store.feeds.updateState(
            username: "alice", notificationId: id, readState: .read, userActionState: .activated, now: Self.utc("2026-11-02T10:02:30Z"))
        return id
    }

    @Test(arguments: Engine.allCases) func eachDeliveryListsHowItEndedAndWhatItsUserDid(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await campaign(in: store)
            let results = try await store.results.deliveryResults(notificationId: id, limit: 10)
            #expect(results.map(\.installationId) == ["laptop", "phone", "tablet"])
            #expect(results.map(\.state) == ["sent", "sent", "failed"])
            #expect(results.map(\.reason) == [nil, nil, "apns.BadDeviceToken"])
            #expect(results.map(\.sentAt) == [Self.utc("2026-11-02T10:00:30Z"), Self.utc("2026-11-02T10:00:30Z"), nil])
            #expect(results.map(\.fetchedAt) == [Self.utc("2026-11-02T10:01:10Z"), Self.utc("2026-11-02T10:01:10Z"), nil])
            #expect(results.map(\.displayedAt) == [Self.utc("2026-11-02T10:02:00Z"), nil, nil])
            #expect(results.map(\.userActionState) == [.activated, .activated, .noInteraction])
            #expect(results.map(\.attempts) == [1, 1, 1])
        }
    }

    @Test(arguments: Engine.allCases) func aPageStartsAfterTheLastDeliveryOfThePreviousOne(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await campaign(in: store)
            let first = try await store.results.deliveryResults(notificationId: id, limit: 2)
            let second = try await store.results.deliveryResults(notificationId: id, after: first.last!.deliveryId, limit: 2)
            #expect(first.map(\.installationId) == ["laptop", "phone"])
            #expect(second.map(\.installationId) == ["tablet"])
        }
    }

    @Test(arguments: Engine.allCases) func theTimelineCountsEachEventInTheStepItHappenedIn(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await campaign(in: store)
            let buckets = try await store.results.timeline(
                notificationId: id, from: Self.created, to: Self.utc("2026-11-02T10:03:00Z"), step: 60)
            #expect(buckets.map(\.start) == [Self.created, Self.utc("2026-11-02T10:01:00Z"), Self.utc("2026-11-02T10:02:00Z")])
            #expect(buckets.map(\.sent) == [2, 0, 0])
            #expect(buckets.map(\.fetched) == [0, 1, 0])
            #expect(buckets.map(\.displayed) == [0, 0, 1])
            #expect(buckets.map(\.opened) == [0, 0, 1])
            #expect(buckets.map(\.dismissed) == [0, 0, 0])
        }
    }
}
