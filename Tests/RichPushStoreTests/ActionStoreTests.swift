import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Buttons pressed")
struct ActionStoreTests {
    static let remind = NotificationAction(id: "remind", label: "Remind me", kind: .http, url: "https://api.example/remind")
    static let shop = NotificationAction(id: "shop", label: "Shop", kind: .open, url: "https://shop.example/")

    func result(of id: Int64, in store: Store) async throws -> DeliveryResult {
        try #require(try await store.results.deliveryResults(notificationId: id, after: 0, limit: 10).first)
    }

    @Test(arguments: Engine.allCases) func anHTTPActionRunsOncePerUserHoweverOftenItIsPressed(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice", content: PushContent(actions: [Self.remind]))
            let first = try await store.feeds.beginActionRun(username: "alice", notificationId: notification.id, action: "remind", origin: "a1")
            #expect(first?.run == true)
            #expect(first?.item.userActionState == .activated)
            #expect(first?.item.action == "remind")
            #expect(first?.eventCursor != nil)
            let again = try await store.feeds.beginActionRun(username: "alice", notificationId: notification.id, action: "remind", origin: "a1")
            #expect(again?.run == false)
            #expect(again?.eventCursor == nil)
            try await store.feeds.recordActionStatus(username: "alice", notificationId: notification.id, action: "remind", status: 204)
            let result = try await result(of: notification.id, in: store)
            #expect(result.action == "remind")
            #expect(result.actionStatus == 204)
            #expect(try await store.results.counts(notificationId: notification.id).actions == ["remind": 1])
        }
    }

    @Test(arguments: Engine.allCases) func pressingAnotherButtonBetweenTwoPressesOfAnHTTPOneRunsItNoMoreThanOnce(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice", content: PushContent(actions: [Self.remind, Self.shop]))
            #expect(
                try await store.feeds.beginActionRun(username: "alice", notificationId: notification.id, action: "remind", origin: nil)?.run == true)
            let shopped = try await store.feeds.updateState(
                username: "alice", notificationId: notification.id, readState: nil, userActionState: .activated, action: "shop", origin: nil,
                now: .now)
            #expect(shopped?.eventCursor != nil)
            // The run of the first press ends after the second button was pressed: its status stays the run's.
            try await store.feeds.recordActionStatus(username: "alice", notificationId: notification.id, action: "remind", status: 500)
            #expect(try await result(of: notification.id, in: store).action == "shop")
            #expect(try await result(of: notification.id, in: store).actionStatus == nil)
            #expect(
                try await store.feeds.beginActionRun(username: "alice", notificationId: notification.id, action: "remind", origin: nil)?.run == false)
            #expect(try await result(of: notification.id, in: store).actionStatus == 500)
        }
    }

    @Test(arguments: Engine.allCases) func ofTwoPressesAtOnceFromTwoProcessesOneRunsTheRequest(_ engine: Engine) async throws {
        try await withStores(engine, count: 2) { stores in
            try await stores[0].register("a1", owner: "alice")
            let (notification, _) = try await stores[0].send("username:alice", content: PushContent(actions: [Self.remind]))
            let runs = try await withThrowingTaskGroup(of: Bool.self) { group in
                for store in stores {
                    group.addTask {
                        try await store.feeds.beginActionRun(username: "alice", notificationId: notification.id, action: "remind", origin: nil)?.run
                            ?? false
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(runs.sorted { !$0 && $1 } == [false, true])
        }
    }
}
