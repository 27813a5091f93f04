import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("State pushes in the store")
struct StatePushStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Alice's iPhone, Pixel, Windows laptop, browser and Linux desktop, and one notification in her feed.
    func alicesDevices(_ store: Store) async throws -> Int64 {
        try await store.register("iphone", owner: "alice", platform: .apns)
        try await store.register("pixel", owner: "alice", platform: .fcm)
        try await store.register("laptop", owner: "alice", platform: .wns)
        try await store.register("browser", owner: "alice", platform: .webpush)
        try await store.register("desktop", owner: "alice")
        return try await store.send("username:alice").notification.id
    }

    @Test(arguments: Engine.allCases) func aStateChangeQueuesOnePushForEachRemoteDeviceButTheOneThatMadeIt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await alicesDevices(store)
            _ = try await store.feeds.updateState(
                username: "alice", notificationId: id, readState: .read, userActionState: .dismissed, origin: "pixel", now: start)
            let claims = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start)
            #expect(claims.map(\.job.installationId).sorted() == ["browser", "iphone", "laptop"])
            #expect(claims.allSatisfy { $0.job.push == .stateChange(richId: id, event: .state(readState: .read, userActionState: .dismissed)) })
        }
    }

    @Test(arguments: Engine.allCases) func aNewerStateReplacesOneNotYetSentAndWaitsOutTheInterval(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await alicesDevices(store)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: .read, userActionState: nil, now: start)
            let first = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start)
            try await store.statePushes.recordOutcomes(first.map { ($0, .sent) }, now: start + 1)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: nil, userActionState: .activated, now: start + 2)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: nil, userActionState: .dismissed, now: start + 3)
            #expect(try await store.statePushes.claimDue(limit: 10, lease: 60, now: start + 5).isEmpty)
            #expect(try await store.statePushes.nextDue() == start + 11)
            let second = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start + 11)
            #expect(second.count == 4)
            #expect(second.allSatisfy { $0.job.push.event == .state(readState: .read, userActionState: .dismissed) })
        }
    }

    @Test(arguments: Engine.allCases) func aStateThatChangedWhileItsPushWasOnItsWayIsSentToo(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await alicesDevices(store)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: .read, userActionState: nil, now: start)
            let claimed = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: .unread, userActionState: nil, now: start + 1)
            try await store.statePushes.recordOutcomes(claimed.map { ($0, .sent) }, now: start + 2)
            let again = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start + 12)
            #expect(again.count == 4)
            #expect(again.allSatisfy { $0.job.push.event == .state(readState: .unread, userActionState: .noInteraction) })
            try await store.statePushes.recordOutcomes(again.map { ($0, .sent) }, now: start + 13)
            #expect(try await store.statePushes.nextDue() == nil)
            #expect(try await store.statePushes.counts(notificationId: id) == ["sent": 4])
        }
    }

    @Test(arguments: Engine.allCases) func aClaimLeftByACrashFallsDueWhenItsLeaseRunsOut(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await alicesDevices(store)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: .read, userActionState: nil, now: start)
            #expect(try await store.statePushes.claimDue(limit: 10, lease: 60, now: start).count == 4)
            #expect(try await store.statePushes.claimDue(limit: 10, lease: 60, now: start + 30).isEmpty)
            let reclaimed = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start + 61)
            #expect(reclaimed.map(\.job.attempt) == [2, 2, 2, 2])
        }
    }

    @Test(arguments: Engine.allCases) func aRecallQueuesADeletedPushForEveryRecipientsRemoteDevices(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await alicesDevices(store)
            try await store.register("bob-phone", owner: "bob", platform: .fcm)
            _ = try await store.send("username:bob")
            _ = try await store.outbox.claimDue(limit: 100, lease: 60)
            _ = try await store.notifications.remove(id: id, now: start)
            let claims = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start)
            #expect(claims.map(\.job.installationId).sorted() == ["browser", "iphone", "laptop", "pixel"])
            #expect(claims.allSatisfy { $0.job.push.keys == ["richEvent": "deleted", "richId": String(id)] })
        }
    }

    @Test(arguments: Engine.allCases) func aDeviceTheHubCallsGoneIsMarkedDeadAndGetsNoMore(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let id = try await alicesDevices(store)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: .read, userActionState: nil, now: start)
            let claims = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start)
            let iphone = try #require(claims.first { $0.job.installationId == "iphone" })
            try await store.statePushes.recordOutcomes([(iphone, .deviceGone(code: "apns.unregistered", message: "gone"))], now: start)
            #expect(try await store.installations.installation(id: "iphone")?.deadAt != nil)
            _ = try await store.feeds.updateState(username: "alice", notificationId: id, readState: .unread, userActionState: nil, now: start + 20)
            let later = try await store.statePushes.claimDue(limit: 10, lease: 60, now: start + 100)
            #expect(!later.map(\.job.installationId).contains("iphone"))
        }
    }
}
