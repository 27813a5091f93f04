import RichPushCore
import Synchronization
import Testing

@testable import RichPushServer

@Suite("The reach of statuses read again and again")
struct ReachCacheTests {
    func counts(sent: Int, fetched: Int, pending: Int = 10) -> NotificationCounts {
        NotificationCounts(tally: DeliveryTally(pending: pending, sent: sent), fetched: fetched, displayed: 0, opened: 0, dismissed: 0, errors: [])
    }

    @Test func aStatusReadAgainWithNothingNewFetchedReusesTheReachAndANewFetchCountsItAgain() async throws {
        let cache = ReachCache()
        let counted = Mutex(0)
        func read(_ counts: NotificationCounts) async -> NotificationReach {
            await cache.reach(of: 1, counts: counts) {
                counted.withLock { $0 += 1 }
                return NotificationReach(total: Reach(reached: counts.fetched, notReached: counts.tally.sent - counts.fetched))
            }
        }
        _ = await read(counts(sent: 10, fetched: 2))
        _ = await read(counts(sent: 10, fetched: 2))
        // More pushes went out within the second: the reach of a moment ago stands.
        _ = await read(counts(sent: 12, fetched: 2))
        #expect(counted.withLock { $0 } == 1)
        let grown = await read(counts(sent: 12, fetched: 3))
        #expect(counted.withLock { $0 } == 2)
        #expect(grown.total.reached == 3)
    }

    @Test func theStatusThatEndsASendCountsItsReachAfresh() async throws {
        let cache = ReachCache()
        func read(_ counts: NotificationCounts) async -> NotificationReach {
            await cache.reach(of: 1, counts: counts) { NotificationReach(total: Reach(notReached: counts.tally.sent)) }
        }
        _ = await read(counts(sent: 0, fetched: 0, pending: 1))
        #expect(await read(counts(sent: 1, fetched: 0, pending: 0)).total.notReached == 1)
    }
}
