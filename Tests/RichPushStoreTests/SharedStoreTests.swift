import Foundation
import RichPushCore
import RichPushStore
import Synchronization
import TestSupport
import Testing

extension Store {
    /// Registers `count` installations of `owner` in one transaction; their ids are `prefix-0` and up.
    func registerMany(_ count: Int, owner: String, prefix: String = "device", platform: Platform = .direct, tags: [String] = []) async throws {
        _ = try await installations.importAll(
            (0..<count).map {
                InstallationRecord(
                    id: "\(prefix)-\($0)", owner: owner, platform: platform, pushChannel: "\(prefix)-\($0)-channel", tags: tags,
                    createdAt: .now, updatedAt: .now)
            })
    }

    /// The same store with APNs standing for a hub that sends a notification once to its whole audience.
    var withAPNsSentToWholeAudiences: Store {
        var store = self
        store.audiencePlatforms = [.apns]
        return store
    }

    /// Claims until nothing is left, recording every delivery as sent; returns the delivery ids claimed.
    func claimAll(batch: Int, limits: CampaignLimits = CampaignLimits()) async throws -> [Int64] {
        var claimed: [Int64] = []
        while true {
            let jobs = try await outbox.claimDue(limit: batch, lease: 60, limits: limits)
            if jobs.isEmpty { return claimed }
            claimed += jobs.map(\.deliveryId)
            try await outbox.recordOutcomes(jobs.map { ($0, .sent) })
        }
    }
}

/// What changes when several gateway processes use one store at once: each store object here stands for a process.
@Suite("Several processes on one store")
struct SharedStoreTests {
    @Test(arguments: Engine.allCases)
    func twoDispatchersClaimingAtOnceNeverClaimTheSameDelivery(_ engine: Engine) async throws {
        try await withDispatchers(engine, count: 2) { stores in
            try await stores[0].registerMany(400, owner: "alice")
            _ = try await stores[0].send("username:alice")
            async let first = stores[0].claimAll(batch: 25)
            async let second = stores[1].claimAll(batch: 25)
            let (a, b) = try await (first, second)
            #expect(Set(a).isDisjoint(with: b))
            #expect(Set(a + b).count == 400)
            #expect(a.count + b.count == 400)
        }
    }

    @Test(arguments: Engine.allCases)
    func anAudienceHubsNotificationIsClaimedWholeByOneDispatcher(_ engine: Engine) async throws {
        try await withDispatchers(engine, count: 2) { stores in
            try await stores[0].registerMany(200, owner: "alice", platform: .apns)
            // Written before the audience hub was configured: on PostgreSQL its deliveries are in the sequence, which
            // hands them to the audience's claim.
            _ = try await stores[0].send("username:alice")
            let claimers = stores.map(\.withAPNsSentToWholeAudiences)
            async let first = claimers[0].outbox.claimDue(limit: 10, lease: 60)
            async let second = claimers[1].outbox.claimDue(limit: 10, lease: 60)
            let (a, b) = try await (first, second)
            #expect(Set([a.count, b.count]) == [0, 200])
        }
    }

    @Test(arguments: Engine.allCases)
    func aStreamReadingWhileTwoProcessesAppendMissesNoEvent(_ engine: Engine) async throws {
        try await withStores(engine, count: 3) { stores in
            try await stores[0].registerMany(300, owner: "alice")
            _ = try await stores[0].send("username:alice")
            let jobs = try await stores[0].claimJobs(limit: 300, lease: 60)
            let writersDone = Recorder<Int>()
            let reader = stores[2]
            async let read: [Int64] = {
                var cursor: Int64 = 0
                var seen: [Int64] = []
                while true {
                    let finished = writersDone.all.count == 2
                    let events = try await reader.events.events(username: "alice", installationId: nil, after: cursor, limit: 50)
                    seen += events.map(\.cursor)
                    cursor = events.last?.cursor ?? cursor
                    if finished && events.isEmpty { return seen }
                }
            }()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, half) in [jobs.prefix(150), jobs.suffix(150)].enumerated() {
                    group.addTask {
                        for job in half { _ = try await stores[index].events.appendRichEvents(for: [job]) }
                        writersDone.append(index)
                    }
                }
                try await group.waitForAll()
            }
            let seen = try await read
            #expect(seen.count == 300)
            #expect(seen == seen.sorted())
        }
    }

    @Test(arguments: Engine.allCases)
    func theSameIdempotencyKeyFromTwoProcessesAtOnceCreatesOneNotification(_ engine: Engine) async throws {
        try await withStores(engine, count: 2) { stores in
            try await stores[0].register("a1", owner: "alice")
            async let first = stores[0].send("username:alice", key: "launch")
            async let second = stores[1].send("username:alice", key: "launch")
            let (a, b) = try await (first, second)
            #expect(a.notification.id == b.notification.id)
            #expect([a.created, b.created].filter { $0 }.count == 1)
            #expect(try await stores[0].outbox.claimDue(limit: 10, lease: 60).count == 1)
        }
    }

    @Test(arguments: Engine.allCases)
    func failedSignInsRecordedByOneProcessCountOnAnother(_ engine: Engine) async throws {
        try await withStores(engine, count: 2) { stores in
            let start = Date.now
            for second in 0..<3 {
                _ = try await stores[0].signInFailures.record(keys: ["u:alice", "a:10.0.0.1"], at: start + Double(second), since: start - 300)
            }
            let counted = try await stores[1].signInFailures.record(keys: ["u:alice", "a:10.0.0.2"], at: start + 3, since: start - 300)
            #expect(counted["u:alice"]?.count == 4)
            #expect(counted["a:10.0.0.2"]?.count == 1)
            #expect(try await stores[1].signInFailures.throttledKeys(since: start - 300, limit: 4).keys.sorted() == ["u:alice"])
            try await stores[0].signInFailures.clear(keys: ["u:alice"])
            #expect(try await stores[1].signInFailures.throttledKeys(since: start - 300, limit: 1).keys.sorted() == ["a:10.0.0.1", "a:10.0.0.2"])
            #expect(try await stores[1].signInFailures.prune(before: start + 10) == 4)
        }
    }

    @Test(arguments: Engine.allCases)
    func processesStartingTogetherBothFindTheSchemaReady(_ engine: Engine) async throws {
        let database = try await TestDatabase(engine)
        defer { database.remove() }
        async let first = database.open()
        async let second = database.open()
        let stores = try await [first, second]
        _ = try await stores[0].users.create(username: "alice", passwordHash: "x", role: .member)
        #expect(try await stores[1].users.user(named: "alice") != nil)
        for store in stores { try await store.close() }
    }

    @Test func aProcessStartingOnASharedStoreLeavesTheClaimsOfOthersUntilTheirLeaseRunsOut() async throws {
        let database = try await TestDatabase(.postgresql)
        defer { database.remove() }
        let first = try await database.open()
        try await first.register("a1", owner: "alice")
        _ = try await first.send("username:alice")
        let now = Date.now
        #expect(try await first.outbox.claimDue(now: now, limit: 10, lease: 600).count == 1)
        try await first.close()
        let second = try await database.open()
        let early = try await second.outbox.claimDue(now: now + 1, limit: 10, lease: 600)
        let late = try await second.outbox.claimDue(now: now + 601, limit: 10, lease: 600)
        try await second.close()
        #expect(early.isEmpty)
        #expect(late.map(\.attempt) == [2])
    }

    @Test(arguments: Engine.allCases)
    func aLeaseExtendedWhileItsBatchIsSentKeepsTheDeliveriesFromAnotherClaimer(_ engine: Engine) async throws {
        try await withDispatchers(engine, count: 2) { stores in
            try await stores[0].register("a1", owner: "alice")
            _ = try await stores[0].send("username:alice")
            let now = Date.now
            let claimed = try await stores[0].outbox.claimDue(now: now, limit: 10, lease: 60)
            #expect(claimed.count == 1)
            try await stores[0].outbox.extendLease(of: claimed.deliveries, by: 60, now: now + 50)
            #expect(try await stores[1].outbox.claimDue(now: now + 70, limit: 10, lease: 60).isEmpty)
            #expect(try await stores[1].outbox.claimDue(now: now + 111, limit: 10, lease: 60).map(\.attempt) == [2])
        }
    }

    @Test(arguments: Engine.allCases)
    func deliveriesAProcessAbandonedMidCampaignAreSentByAnotherAsTheirSecondAttemptAndTheRestOnce(_ engine: Engine) async throws {
        try await withDispatchers(engine, count: 2) { stores in
            try await stores[0].registerMany(20, owner: "alice")
            _ = try await stores[0].send("username:alice")
            let start = Date.now
            let abandoned = try await stores[0].outbox.claimDue(now: start, limit: 5, lease: 1)
            var sent: [ClaimedDelivery] = []
            for step in 1...8 {
                let jobs = try await stores[1].outbox.claimDue(now: start + Double(step) / 2, limit: 5, lease: 60)
                try await stores[1].outbox.recordOutcomes(jobs.map { ($0, .sent) }, now: start + Double(step) / 2)
                sent += jobs
            }
            #expect(sent.count == 20)
            #expect(Set(sent.map(\.deliveryId)).count == 20)
            let again = sent.filter { $0.attempt == 2 }
            #expect(Set(again.map(\.deliveryId)) == Set(abandoned.map(\.deliveryId)))
        }
    }

    @Test func aDeliveryAnotherProcessHoldsIsNotDueUntilItsLeaseRunsOut() async throws {
        try await withStores(.postgresql, count: 2) { stores in
            try await stores[0].register("a1", owner: "alice")
            _ = try await stores[0].send("username:alice")
            let now = Date.now
            let due = try #require(try await stores[1].outbox.nextDeliveryDue(now: now))
            #expect(try await stores[0].outbox.claimDue(now: now, limit: 10, lease: 60).count == 1)
            #expect(try await stores[1].outbox.nextDeliveryDue(now: now + 59) == nil)
            #expect(try await stores[1].outbox.nextDeliveryDue(now: now + 61) == due)
        }
    }

    @Test func aProcessHearsTheEventsAndNewWorkOfAnother() async throws {
        try await withStores(.postgresql, count: 2) { stores in
            let heard = Recorder<StoreSignal>()
            let listener = Task { try await stores[1].listen { signal in heard.append(signal) } }
            defer { listener.cancel() }
            try await stores[0].register("a1", owner: "alice")
            func heardBoth(_ signals: [StoreSignal]) -> Bool {
                signals.contains(.deliveriesDue) && signals.contains { if case .events = $0 { true } else { false } }
            }
            // LISTEN takes effect a moment after it is sent, and its connection may wait for a busy server: keep making
            // news until some is heard.
            _ = try await eventually(within: .seconds(60)) {
                _ = try await stores[0].send("username:alice")
                _ = try await stores[0].events.appendRichEvents(for: try await stores[0].claimJobs(limit: 10, lease: 60))
                return heardBoth(heard.all)
            }
            let signals = heard.all
            try #require(heardBoth(signals))
            #expect(Set(signals.compactMap { if case .events(let owner) = $0 { owner } else { nil } }) == ["alice"])
        }
    }

    @Test func anExclusiveStoreHasNoOtherProcessToHear() async throws {
        try await withStore(.sqlite) { store in
            #expect(!store.isShared)
            await #expect(throws: StoreError.notShared) { try await store.listen { _ in } }
        }
    }
}

/// Values collected from concurrent tasks.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.withLock { $0 } }
}
