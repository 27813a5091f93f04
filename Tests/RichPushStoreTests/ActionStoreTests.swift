import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Buttons pressed")
struct ActionStoreTests {
    static let remind = NotificationAction(id: "remind", label: "Remind me", kind: .http, url: "https://api.example/remind")

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
            try await store.feeds.recordActionStatus(username: "alice", notificationId: notification.id, status: 204)
            let result = try #require(try await store.results.deliveryResults(notificationId: notification.id, after: 0, limit: 10).first)
            #expect(result.action == "remind")
            #expect(result.actionStatus == 204)
            #expect(try await store.results.counts(notificationId: notification.id).actions == ["remind": 1])
        }
    }

    @Test(arguments: Engine.allCases) func anotherButtonPressedLaterReplacesTheFirstAndItsStatus(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let shop = NotificationAction(id: "shop", label: "Shop", kind: .open, url: "https://shop.example/")
            let (notification, _) = try await store.send("username:alice", content: PushContent(actions: [Self.remind, shop]))
            _ = try await store.feeds.beginActionRun(username: "alice", notificationId: notification.id, action: "remind", origin: nil)
            try await store.feeds.recordActionStatus(username: "alice", notificationId: notification.id, status: 500)
            let changed = try await store.feeds.updateState(
                username: "alice", notificationId: notification.id, readState: nil, userActionState: .activated, action: "shop", origin: nil,
                now: .now)
            #expect(changed?.eventCursor != nil)
            let result = try #require(try await store.results.deliveryResults(notificationId: notification.id, after: 0, limit: 10).first)
            #expect(result.action == "shop")
            #expect(result.actionStatus == nil)
        }
    }
}
