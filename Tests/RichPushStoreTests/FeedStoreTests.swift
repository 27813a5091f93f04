import Foundation
import Logging
import RichPushCore
import RichPushStore
import Testing

@Suite("Feeds and events")
struct FeedStoreTests {
    @Test(arguments: Engine.allCases) func anUnreadBadgeIsTheOwnersUnreadCountWhenThePushIsBuilt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("phone", owner: "alice")
            let (first, _) = try await store.send("username:alice")
            _ = try await store.send("username:alice")
            _ = try await store.outbox.claimDue(limit: 10, lease: 60)
            _ = try await store.feeds.updateState(username: "alice", notificationId: first.id, readState: .read, userActionState: nil)
            let (badged, _) = try await store.send("username:alice", content: PushContent(badge: .unread))
            let job = try #require(try await store.claimJobs(limit: 10, lease: 60).first)
            #expect(job.notificationId == badged.id)
            // The second notification and this one.
            #expect(job.push.badge == 2)
            #expect(job.variesByDevice)
        }
    }

    @Test(arguments: Engine.allCases) func eachDeliveryCarriesItsInstallationsLanguageVariant(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for (id, language) in [("fr-phone", "fr-CA"), ("en-phone", "en"), ("phone", nil)] as [(String, String?)] {
                try await store.installations.upsert(
                    InstallationRecord(
                        id: id, owner: "alice", platform: .fcm, pushChannel: id, tags: [], language: language, createdAt: .now, updatedAt: .now))
            }
            _ = try await store.send("username:alice", content: PushContent(localizations: ["fr": Localization(message: "Bonjour")]))
            let jobs = try await store.claimJobs(limit: 10, lease: 60)
            let messages = Dictionary(uniqueKeysWithValues: jobs.map { ($0.installationId, $0.push.richMessage) })
            #expect(messages == ["fr-phone": "Bonjour", "en-phone": "Hello", "phone": "Hello"])
            #expect(jobs.first { $0.installationId == "fr-phone" }?.language == "fr")
        }
    }

    @Test(arguments: Engine.allCases) func recipientsAreTheOwnersOfAddressedInstallationsAndNamedUsers(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "dave", passwordHash: "x", role: .member)
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice || username:dave || username:ghost")
            #expect(try await store.notifications.isRecipient(notificationId: notification.id, username: "alice"))
            #expect(try await store.notifications.isRecipient(notificationId: notification.id, username: "dave"))
            #expect(!(try await store.notifications.isRecipient(notificationId: notification.id, username: "ghost")))
        }
    }

    @Test(arguments: Engine.allCases) func aScheduledNotificationEntersTheFeedWhenReleased(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let later = Date.now + 60
            _ = try await store.send("username:alice", deliverAt: later)
            #expect(try await store.feeds.items(username: "alice", since: nil, limit: 10).items.isEmpty)
            #expect(try await store.notifications.releaseDue(now: later + 1).count == 1)
            #expect(try await store.feeds.items(username: "alice", since: nil, limit: 10, now: later + 1).items.count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func syncingSinceACursorReturnsOnlyLaterChanges(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (first, _) = try await store.send("username:alice")
            let cursor = try await store.feeds.items(username: "alice", since: nil, limit: 10).cursor
            let (second, _) = try await store.send("username:alice")
            _ = try await store.feeds.updateState(username: "alice", notificationId: first.id, readState: .read, userActionState: nil)
            let page = try await store.feeds.items(username: "alice", since: cursor, limit: 10)
            #expect(page.items.map(\.id) == [second.id, first.id])
            #expect(page.items.last?.readState == .read)
            #expect(try await store.feeds.items(username: "alice", since: page.cursor, limit: 10).items.isEmpty)
        }
    }

    @Test(arguments: Engine.allCases) func aStateChangeAppendsOneEventForTheUsersDevicesAndNoneWhenNothingChanged(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice")
            let changed = try await store.feeds.updateState(
                username: "alice", notificationId: notification.id, readState: .read, userActionState: .dismissed)
            #expect(changed?.eventCursor != nil)
            let unchanged = try await store.feeds.updateState(
                username: "alice", notificationId: notification.id, readState: .read, userActionState: nil)
            #expect(unchanged?.eventCursor == nil)
            let events = try await store.events.events(username: "alice", installationId: "a1", after: 0, limit: 10)
            #expect(events.map(\.body) == [.state(richId: notification.id, readState: .read, userActionState: .dismissed)])
        }
    }

    @Test(arguments: Engine.allCases) func richEventsAreAppendedOncePerDeliveryEvenWhenPublishedTwice(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            _ = try await store.send("username:alice")
            let jobs = try await store.claimJobs(limit: 10, lease: 60)
            #expect(try await store.events.appendRichEvents(for: jobs) == ["alice"])
            #expect(try await store.events.appendRichEvents(for: jobs).isEmpty)
            #expect(try await store.events.events(username: "alice", installationId: "a1", after: 0, limit: 10).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func recallingASentNotificationSignalsItsRecipientsAndEmptiesTheFeed(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice")
            let jobs = try await store.outbox.claimDue(limit: 10, lease: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) })
            let removal = try await store.notifications.remove(id: notification.id)
            #expect(removal?.outcome == .deleted)
            #expect(removal?.notifiedUsers == ["alice"])
            #expect(try await store.feeds.items(username: "alice", since: nil, limit: 10).items.isEmpty)
            #expect(
                try await store.events.events(username: "alice", installationId: nil, after: 0, limit: 10).last?.body
                    == .deleted(richId: notification.id))
            #expect(try await store.notifications.remove(id: notification.id)?.outcome == .alreadyRemoved)
        }
    }

    @Test(arguments: Engine.allCases) func cancelingBeforeAnySendStopsEveryDelivery(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice", deliverAt: .now + 60)
            #expect(try await store.notifications.remove(id: notification.id)?.outcome == .canceled)
            #expect(try await store.outbox.claimDue(now: .now + 120, limit: 10, lease: 60).isEmpty)
            #expect(try await store.results.counts(notificationId: notification.id).tally == DeliveryTally(canceled: 1))
        }
    }

    @Test(arguments: Engine.allCases) func theFirstFetchOfARecipientIsCountedOnce(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice")
            let fetch = PayloadFetch(notificationId: notification.id, username: "alice", at: .now)
            try await store.feeds.recordFetches([fetch, fetch])
            try await store.feeds.recordFetches([fetch])
            #expect(try await store.results.counts(notificationId: notification.id).fetched == 1)
        }
    }
}
