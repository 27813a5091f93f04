import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Fetches that name their installation")
struct InstallationFetchStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Alice's phone and tablet and Bob's phone were each sent a silent push at `start + 1`.
    func sentToAliceAndBob(_ store: Store) async throws -> NotificationRecord {
        try await store.register("alice-phone", owner: "alice", platform: .apns)
        try await store.register("alice-tablet", owner: "alice", platform: .fcm)
        try await store.register("bob-phone", owner: "bob", platform: .apns)
        let (notification, _) = try await store.send("username:alice || username:bob", deliverAt: start)
        let jobs = try await store.claimJobs(now: start, limit: 10, lease: 60)
        try await store.outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: start + 1)
        return notification
    }

    /// Each installation's `fetchedAt` and `fetchedBy`.
    func fetches(of notification: NotificationRecord, in store: Store) async throws -> [String: (Date?, FetchedBy?)] {
        try await store.results.deliveryResults(notificationId: notification.id, after: 0, limit: 10).reduce(into: [:]) {
            $0[$1.installationId] = ($1.fetchedAt, $1.fetchedBy)
        }
    }

    @Test(arguments: Engine.allCases) func aFetchNamingHerPhoneIsThePhonesAndHerTabletShowsThatSheFetchedElsewhere(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAliceAndBob(store)
            try await store.feeds.recordFetches([
                PayloadFetch(notificationId: notification.id, username: "alice", installationId: "alice-phone", at: start + 5)
            ])
            try await store.feeds.recordFetches([
                PayloadFetch(notificationId: notification.id, username: "alice", installationId: "alice-tablet", at: start + 9)
            ])
            let fetches = try await fetches(of: notification, in: store)
            #expect(fetches["alice-phone"]! == (start + 5, .installation))
            #expect(fetches["alice-tablet"]! == (start + 9, .installation))
            #expect(fetches["bob-phone"]! == (nil, nil))
            #expect(try await store.results.counts(notificationId: notification.id).fetched == 1)
        }
    }

    @Test(arguments: Engine.allCases) func aFetchNamingNoInstallationIsHersOnEveryDevice(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAliceAndBob(store)
            try await store.feeds.recordFetches([PayloadFetch(notificationId: notification.id, username: "alice", at: start + 5)])
            try await store.feeds.recordFetches([
                PayloadFetch(notificationId: notification.id, username: "alice", installationId: "alice-tablet", at: start + 9)
            ])
            let fetches = try await fetches(of: notification, in: store)
            #expect(fetches["alice-phone"]! == (start + 5, .user))
            #expect(fetches["alice-tablet"]! == (start + 9, .installation))
        }
    }

    @Test(arguments: Engine.allCases) func aFetchNamingSomeoneElsesInstallationCountsForTheFetcherAlone(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAliceAndBob(store)
            try await store.feeds.recordFetches([
                PayloadFetch(notificationId: notification.id, username: "alice", installationId: "bob-phone", at: start + 5)
            ])
            let fetches = try await fetches(of: notification, in: store)
            #expect(fetches["alice-phone"]! == (start + 5, .user))
            #expect(fetches["bob-phone"]! == (nil, nil))
        }
    }

    @Test(arguments: Engine.allCases) func aFetchThroughADevicesSignedLinkCountsForTheDeviceAndItsOwner(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await sentToAliceAndBob(store)
            try await store.feeds.recordFetches([
                PayloadFetch(notificationId: notification.id, username: nil, installationId: "bob-phone", at: start + 7)
            ])
            let fetches = try await fetches(of: notification, in: store)
            #expect(fetches["bob-phone"]! == (start + 7, .installation))
            #expect(fetches["alice-phone"]! == (nil, nil))
            #expect(try await store.results.counts(notificationId: notification.id).fetched == 1)
        }
    }
}
