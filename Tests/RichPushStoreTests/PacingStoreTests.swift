import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("A campaign's delivery rate")
struct PacingStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Registers `count` phones and sends them one notification at `start`, paced at `rate` a minute.
    func pacedCampaign(of count: Int, rate: Int, in store: Store) async throws -> NotificationRecord {
        _ = try await store.installations.importAll(
            (0..<count).map {
                InstallationRecord(
                    id: "phone-\($0)", owner: "user\($0)", platform: .apns, pushChannel: "token-\($0)", tags: ["topic:sale"], createdAt: start,
                    updatedAt: start)
            })
        return try await store.send("topic:sale", deliverAt: start, deliveryRate: rate).notification
    }

    /// Claims as dispatchers would, `limit` at a time, every 50 ms of the clock for `seconds`, each of `stores` at
    /// once, and counts the deliveries let go in each second. The campaign is larger than a claim takes, so turns are
    /// handed out over several claims while earlier ones come due.
    func claimsPerSecond(for seconds: Int, by stores: [Store], limit: Int = 25) async throws -> [Int] {
        var perSecond = Array(repeating: 0, count: seconds)
        for tick in 0..<(seconds * 20) {
            let now = start + Double(tick) * 0.05
            let claims = try await withThrowingTaskGroup(of: (Store, ClaimedBatch).self) { group in
                for store in stores { group.addTask { (store, try await store.outbox.claimDue(now: now, limit: limit, lease: 60)) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (store, claimed) in claims {
                perSecond[tick / 20] += claimed.count
                try await store.outbox.recordOutcomes(PushComposer.jobs(of: claimed).map { ($0, DeliveryOutcome.sent) }, now: now)
            }
        }
        return perSecond
    }

    @Test(arguments: Engine.allCases) func aCampaignAtSixThousandAMinuteGoesOutAtAHundredASecond(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let notification = try await pacedCampaign(of: 1500, rate: 6000, in: store)
            let perSecond = try await claimsPerSecond(for: 4, by: [store])
            #expect(perSecond.allSatisfy { (90...110).contains($0) }, "\(perSecond)")
            #expect(try await store.results.counts(notificationId: notification.id).tally.sent == perSecond.reduce(0, +))
            let waiting = try await store.results.deliveryResults(notificationId: notification.id, after: 0, limit: 1000).filter {
                $0.state == "pending"
            }
            // Those still to go wait for their turn, or for one to be given (turns are handed out a second ahead).
            #expect(waiting.contains { $0.reason == "delivery.paced" })
            #expect(waiting.allSatisfy { ($0.reason == nil || $0.reason == "delivery.paced") && $0.attempts == 0 })
        }
    }

    @Test func twoProcessesClaimingOneCampaignShareItsPace() async throws {
        try await withStores(.postgresql, count: 2) { stores in
            _ = try await pacedCampaign(of: 1500, rate: 6000, in: stores[0])
            let perSecond = try await claimsPerSecond(for: 4, by: stores)
            #expect(perSecond.allSatisfy { (90...110).contains($0) }, "\(perSecond)")
        }
    }

    @Test(arguments: Engine.allCases) func aPaceLeftIdleBanksNoTurnsForABurstLater(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await pacedCampaign(of: 5, rate: 60, in: store)
            #expect(try await store.outbox.claimDue(now: start, limit: 10, lease: 60).count == 1)
            // The other four go at their turns, a second apart, and their hub asks to try them again in an hour.
            for second in 1...4 {
                let turn = try await store.outbox.claimDue(now: start + Double(second), limit: 10, lease: 60)
                #expect(turn.count == 1)
                try await store.outbox.recordOutcomes(
                    PushComposer.jobs(of: turn).map { ($0, DeliveryOutcome.retry(after: 3600, code: "apns.busy", message: "later")) },
                    now: start + Double(second))
            }
            // An hour later they are paced from then on: one goes at once, the rest at their new turns.
            let later = start + 3605
            #expect(try await store.outbox.claimDue(now: later, limit: 10, lease: 60).count == 1)
            #expect(try await store.outbox.claimDue(now: later + 0.5, limit: 10, lease: 60).isEmpty)
            #expect(try await store.outbox.claimDue(now: later + 1, limit: 10, lease: 60).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func aClaimLeavesTheNotificationsHeldBackAndTakesThemOnceTheyAreNot(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for phone in 0..<3 { try await store.register("phone-\(phone)", owner: "user\(phone)", platform: .apns, tags: ["topic:sale"]) }
            // The first campaign is held back, as image campaigns are while payloads go out at the egress limit.
            let heldCampaign = try await store.send("topic:sale", deliverAt: start).notification
            let otherCampaign = try await store.send("topic:sale", deliverAt: start).notification
            var egressAtLimit = CampaignLimits()
            egressAtLimit.heldBack = [heldCampaign.id]
            let none = [(job: ClaimedDelivery, outcome: DeliveryOutcome)]()
            let held = try await store.outbox.claimDue(recording: none, now: start, limit: 10, lease: 60, limits: egressAtLimit)
            #expect(held.map(\.notificationId) == Array(repeating: otherCampaign.id, count: 3))
            let later = try await store.outbox.claimDue(recording: none, now: start + 1, limit: 10, lease: 60, limits: CampaignLimits())
            #expect(later.map(\.notificationId) == Array(repeating: heldCampaign.id, count: 3))
        }
    }
}
