import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("A/B variants in the store")
struct VariantStoreTests {
    static let variants = [
        Variant(name: "A", weight: 50, message: "Twenty percent off", content: PushContent(title: "Sale")),
        Variant(name: "B", weight: 50, message: "Free shipping", content: PushContent(title: "Shipping")),
    ]

    func sendTest(to users: [String], in store: Store) async throws -> Int64 {
        for user in users {
            try await store.register("\(user)-phone", owner: user)
            try await store.register("\(user)-laptop", owner: user)
        }
        return try await store.notifications.create(
            NotificationDraft(
                message: "Sale", payload: .text("t"),
                audience: try TagExpression(parsing: "topic:none || " + users.map { "username:\($0)" }.joined(separator: " || ")),
                pushStyle: .silent, deliverAt: .now, expiresAt: nil, createdBy: "mark", idempotencyKey: nil, variants: Self.variants)
        ).notification.id
    }

    @Test(arguments: Engine.allCases) func everyDeviceOfAUserGetsThePushOfTheUsersVariant(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let users = (0..<12).map { "user\($0)" }
            let id = try await sendTest(to: users, in: store)
            let jobs = try await store.claimJobs(limit: 100, lease: 60)
            #expect(jobs.count == 24)
            for job in jobs {
                let expected = Variant.assigned(to: job.owner, of: id, among: Self.variants)!
                #expect(job.push.richMessage == expected.message)
                #expect(job.push.richTitle == expected.content.title)
                #expect(job.variant == expected.name)
                #expect(job.variesByDevice)
            }
            #expect(Set(jobs.map(\.push.richMessage)) == ["Twenty percent off", "Free shipping"])
        }
    }

    @Test(arguments: Engine.allCases) func aUsersFeedShowsTheirVariant(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await sendTest(to: ["alice", "bob", "carol", "dave"], in: store)
            for user in ["alice", "bob", "carol", "dave"] {
                let item = try #require(try await store.feeds.items(username: user, since: nil, limit: 10).items.first)
                let expected = Variant.assigned(to: user, of: id, among: Self.variants)!
                #expect(item.message == expected.message)
                #expect(item.content.title == expected.content.title)
            }
        }
    }

    @Test(arguments: Engine.allCases) func eachVariantsFunnelCountsItsOwnUsersDevices(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let users = (0..<10).map { "user\($0)" }
            let id = try await sendTest(to: users, in: store)
            let jobs = try await store.outbox.claimDue(limit: 100, lease: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) })
            let inA = users.filter { Variant.assigned(to: $0, of: id, among: Self.variants)?.name == "A" }
            try await store.feeds.recordFetches(inA.prefix(1).map { PayloadFetch(notificationId: id, username: $0, at: .now) })
            let funnels = try await store.results.variantFunnels(notificationId: id, variants: Self.variants)
            #expect(funnels.map(\.name) == ["A", "B"])
            #expect(funnels.map(\.targeted) == [inA.count * 2, (users.count - inA.count) * 2])
            #expect(funnels.map(\.sent) == funnels.map(\.targeted))
            #expect(funnels.map(\.fetched) == [inA.isEmpty ? 0 : 1, 0])
        }
    }
}
