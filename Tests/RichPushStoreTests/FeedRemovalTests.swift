import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Removing a notification from one's own feed")
struct FeedRemovalTests {
    @Test(arguments: Engine.allCases) func aRemovedNotificationLeavesTheUsersFeedAndTheirDevicesHearOfIt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice")
            let (kept, _) = try await store.send("username:alice")
            let (removed, _) = try await store.send("username:alice")
            let cursor = try #require(try await store.feeds.remove(username: "alice", notificationId: removed.id))
            #expect(try await store.feeds.items(username: "alice", since: nil, limit: 10).items.map(\.id) == [kept.id])
            let events = try await store.events.events(username: "alice", installationId: "phone", after: cursor - 1, limit: 10)
            #expect(events.map(\.body) == [.deleted(richId: removed.id)])
        }
    }

    @Test(arguments: Engine.allCases) func theUserStaysARecipientWhosePayloadIsReadable(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice")
            let (removed, _) = try await store.send("username:alice")
            _ = try await store.feeds.remove(username: "alice", notificationId: removed.id)
            #expect(try await store.notifications.isRecipient(notificationId: removed.id, username: "alice"))
        }
    }

    @Test(arguments: Engine.allCases) func aRemovedNotificationNoLongerCountsTowardTheUnreadBadge(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice")
            let (removed, _) = try await store.send("username:alice")
            _ = try await store.outbox.claimDue(limit: 10, lease: 60)
            _ = try await store.feeds.remove(username: "alice", notificationId: removed.id)
            _ = try await store.send("username:alice", content: PushContent(badge: .unread))
            let job = try #require(try await store.claimJobs(limit: 10, lease: 60).first)
            #expect(job.push.badge == 1)
        }
    }

    @Test(arguments: Engine.allCases) func removingWhatIsNotInTheFeedChangesNothing(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice")
            let (removed, _) = try await store.send("username:alice")
            #expect(try await store.feeds.remove(username: "bob", notificationId: removed.id) == nil)
            _ = try await store.feeds.remove(username: "alice", notificationId: removed.id)
            #expect(try await store.feeds.remove(username: "alice", notificationId: removed.id) == nil)
        }
    }
}
