import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Live Activities in the store")
struct ActivityStoreTests {
    static let startToken = String(repeating: "ab", count: 32)
    static let updateToken = String(repeating: "cd", count: 32)

    /// Alice's iPhone with its push-to-start token, and an activity started to her.
    func started(_ store: Store, state: String = #"{"status":"packed"}"#, alert: ActivityAlert? = nil) async throws -> ActivityRecord {
        try await store.register("iphone", owner: "alice", platform: .apns)
        try await store.activities.setPushToStartToken(Self.startToken, of: "iphone", now: .now)
        let now = Date.now
        return try await store.activities.start(
            ActivityRecord(
                id: 0, audience: "username:alice", attributesType: "DeliveryAttributes", attributes: "{}", contentState: state,
                alert: alert, createdBy: "mark", createdAt: now, updatedAt: now),
            audience: try TagExpression(parsing: "username:alice"), now: now)
    }

    func claim(_ store: Store, recording finished: [(job: ActivityJob, outcome: DeliveryOutcome)] = []) async throws -> [ActivityJob] {
        try await store.activities.claimDue(recording: finished, limit: 10, lease: 60, now: .now)
    }

    @Test(arguments: Engine.allCases) func anUpdateBeforeTheStartWentIsCarriedByTheStartAlone(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let activity = try await started(store)
            _ = try await store.activities.update(id: activity.id, contentState: #"{"status":"shipped"}"#, alert: nil, staleDate: nil, now: .now)
            let jobs = try await claim(store)
            #expect(jobs.map(\.event) == [.start])
            #expect(jobs.first?.token == Self.startToken)
            #expect(jobs.first?.activity.contentState == #"{"status":"shipped"}"#)
        }
    }

    @Test(arguments: Engine.allCases) func aStartStillWaitingKeepsItsAlertThroughAnUpdateThatRaisesNone(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let activity = try await started(store, alert: ActivityAlert(title: "Your order", body: "Packed"))
            _ = try await store.activities.update(id: activity.id, contentState: #"{"status":"shipped"}"#, alert: nil, staleDate: nil, now: .now)
            let start = try #require(try await claim(store).first)
            #expect(start.event == .start)
            #expect(start.activity.alert == nil)
            #expect(start.activity.startAlert == ActivityAlert(title: "Your order", body: "Packed"))
        }
    }

    @Test(arguments: Engine.allCases) func aStateThatCameWhileTheStartWasOnItsWayFollowsItAsAnUpdate(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let activity = try await started(store)
            let start = try await claim(store)
            _ = try await store.activities.update(id: activity.id, contentState: #"{"status":"shipped"}"#, alert: nil, staleDate: nil, now: .now)
            #expect(try await claim(store, recording: start.map { ($0, .sent) }).isEmpty, "no update token yet")
            #expect(try await store.activities.setUpdateToken(Self.updateToken, of: "iphone", activity: activity.id, now: .now))
            let update = try await claim(store)
            #expect(update.map(\.event) == [.update])
            #expect(update.first?.token == Self.updateToken)
            #expect(update.first?.activity.version == 2)
        }
    }

    @Test(arguments: Engine.allCases) func twoUpdatesWhileTheDeviceHadNoTokenGoAsTheLatestAlone(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let activity = try await started(store)
            _ = try await claim(store, recording: try await claim(store).map { ($0, .sent) })
            for status in ["shipped", "out for delivery"] {
                _ = try await store.activities.update(
                    id: activity.id, contentState: #"{"status":"\#(status)"}"#, alert: nil, staleDate: nil, now: .now)
            }
            #expect(try await store.activities.deliveries(of: activity.id, after: nil, limit: 10).first?.reason == "activity.awaitingToken")
            #expect(try await store.activities.setUpdateToken(Self.updateToken, of: "iphone", activity: activity.id, now: .now))
            let jobs = try await claim(store)
            #expect(jobs.count == 1)
            #expect(jobs.first?.activity.contentState == #"{"status":"out for delivery"}"#)
            _ = try await claim(store, recording: jobs.map { ($0, .sent) })
            let result = try #require(try await store.activities.deliveries(of: activity.id, after: nil, limit: 10).first)
            #expect(result.state == "sent")
            #expect(result.event == .update)
        }
    }

    @Test(arguments: Engine.allCases) func endingAnActivityWhoseStartNeverWentSendsNothing(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let activity = try await started(store)
            let ended = try await store.activities.end(id: activity.id, dismissalDate: nil, now: .now)
            #expect(ended?.endedAt != nil)
            #expect(try await claim(store).isEmpty)
            #expect(try await store.activities.deliveries(of: activity.id, after: nil, limit: 10).first?.state == "canceled")
            #expect(try await store.activities.end(id: activity.id, dismissalDate: nil, now: .now) == nil)
        }
    }

    @Test(arguments: Engine.allCases) func anUpdateAndAnEndAtOnceFromTwoProcessesEndItAndTellTheDeviceOfTheEnd(_ engine: Engine) async throws {
        try await withStores(engine, count: 2) { stores in
            let activity = try await started(stores[0])
            _ = try await claim(stores[0], recording: try await claim(stores[0]).map { ($0, .sent) })
            #expect(try await stores[0].activities.setUpdateToken(Self.updateToken, of: "iphone", activity: activity.id, now: .now))
            async let updated = stores[0].activities.update(
                id: activity.id, contentState: #"{"status":"shipped"}"#, alert: nil, staleDate: nil, now: .now)
            async let ended = stores[1].activities.end(id: activity.id, dismissalDate: nil, now: .now)
            let (update, end) = try await (updated, ended)
            #expect(end != nil)
            let current = try #require(try await stores[0].activities.activity(id: activity.id))
            #expect(current.endedAt != nil)
            #expect(current.version == (update == nil ? 2 : 3))
            let jobs = try await claim(stores[1])
            #expect(jobs.map(\.event) == [.end])
            #expect(jobs.first?.activity.version == current.version)
        }
    }

    @Test(arguments: Engine.allCases) func anUnregisteredPhonesTokensAreForgottenForWhoeverRegistersItsIdNext(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let activity = try await started(store)
            #expect(try await store.installations.delete(id: "iphone"))
            #expect(try await store.activities.deliveries(of: activity.id, after: nil, limit: 10).first?.reason == "installation.deleted")
            try await store.register("iphone", owner: "bob", platform: .apns)
            let now = Date.now
            let next = try await store.activities.start(
                ActivityRecord(
                    id: 0, audience: "username:bob", attributesType: "T", attributes: "{}", contentState: "{}", relevanceScore: 0.8,
                    createdBy: "mark", createdAt: now, updatedAt: now),
                audience: try TagExpression(parsing: "username:bob"), now: now)
            #expect(try await store.activities.deliveries(of: next.id, after: nil, limit: 10).first?.reason == "activity.noPushToStartToken")
            #expect(try await store.activities.activity(id: next.id)?.relevanceScore == 0.8)
        }
    }

    @Test(arguments: Engine.allCases) func aPushTheHubRefusedForGoodFailsWithItsReason(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let activity = try await started(store)
            let jobs = try await claim(store)
            _ = try await claim(store, recording: jobs.map { ($0, .failed(code: "apns.badDeviceToken", message: "no")) })
            let result = try #require(try await store.activities.deliveries(of: activity.id, after: nil, limit: 10).first)
            #expect(result.state == "failed")
            #expect(result.reason == "apns.badDeviceToken")
        }
    }
}
