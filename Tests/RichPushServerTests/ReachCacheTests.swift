import RichPushCore
import Synchronization
import TestSupport
import Testing

@testable import RichPushServer

@Suite("The reach of statuses read again and again")
struct ReachCacheTests {
    /// How many times the tests' reach was counted.
    final class Counted: Sendable {
        private let made = Mutex(0)
        func add() { made.withLock { $0 += 1 } }
        var value: Int { made.withLock { $0 } }
    }

    let clock = ManualClock()
    let counted = Counted()

    func counts(sent: Int, fetched: Int, pending: Int = 10) -> NotificationCounts {
        NotificationCounts(tally: DeliveryTally(pending: pending, sent: sent), fetched: fetched, displayed: 0, opened: 0, dismissed: 0, errors: [])
    }

    /// Reads notification 1's reach through `cache`, a count taking `taking` of the clock's time.
    func read(_ counts: NotificationCounts, from cache: ReachCache<ManualClock>, taking: Duration = .milliseconds(1)) async
        -> NotificationReach
    {
        await cache.reach(of: 1, counts: counts) {
            counted.add()
            clock.advance(by: taking)
            return NotificationReach(total: Reach(reached: counts.fetched, notReached: counts.tally.sent - counts.fetched))
        }
    }

    @Test func aStatusReadAgainWithNothingNewFetchedReusesTheReachAndANewFetchCountsItAgain() async throws {
        let cache = ReachCache(clock: clock)
        _ = await read(counts(sent: 10, fetched: 2), from: cache)
        _ = await read(counts(sent: 10, fetched: 2), from: cache)
        // More pushes went out within the second: the reach of a moment ago stands.
        _ = await read(counts(sent: 12, fetched: 2), from: cache)
        #expect(counted.value == 1)
        let grown = await read(counts(sent: 12, fetched: 3), from: cache)
        #expect(counted.value == 2)
        #expect(grown.total.reached == 3)
    }

    @Test func theStatusThatEndsASendCountsItsReachAfresh() async throws {
        let cache = ReachCache(clock: clock)
        _ = await read(counts(sent: 0, fetched: 0, pending: 1), from: cache)
        #expect(await read(counts(sent: 1, fetched: 0, pending: 0), from: cache).total.notReached == 1)
    }

    @Test func aReachThatTookLongToCountStandsTwentyTimesAsLongWhileFetchesGrow() async throws {
        let cache = ReachCache(clock: clock)
        _ = await read(counts(sent: 100_000, fetched: 10), from: cache, taking: .milliseconds(200))
        clock.advance(by: .seconds(3))
        let stood = await read(counts(sent: 100_000, fetched: 500), from: cache)
        #expect(stood.total.reached == 10)
        clock.advance(by: .seconds(1))
        let countedAgain = await read(counts(sent: 100_000, fetched: 900), from: cache)
        #expect(countedAgain.total.reached == 900)
        #expect(counted.value == 2)
    }

    @Test func aSmallCampaignsReachCountsEachNewFetchHoweverLongABusyMachineTookOverTheLastCount() async throws {
        let cache = ReachCache(clock: clock)
        _ = await read(counts(sent: 6, fetched: 0, pending: 0), from: cache, taking: .milliseconds(200))
        #expect(await read(counts(sent: 6, fetched: 3, pending: 0), from: cache).total.reached == 3)
    }

    @Test func theStatusThatEndsASendCountsAfreshHoweverLongTheLastCountTook() async throws {
        let cache = ReachCache(clock: clock)
        _ = await read(counts(sent: 99_000, fetched: 10, pending: 1000), from: cache, taking: .milliseconds(200))
        let ended = await read(counts(sent: 100_000, fetched: 10, pending: 0), from: cache)
        #expect(ended.total.notReached == 100_000 - 10)
    }
}
