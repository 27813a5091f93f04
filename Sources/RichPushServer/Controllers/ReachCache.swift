import RichPushCore
import Synchronization

/// The reach of recently read statuses, so a status followed twice a second (`richpush send --wait`, the console) does
/// not count a large campaign's every delivery each time: the reach is counted over them, the rest of the status
/// read from tallies.
///
/// A reach is counted again when the status counts more fetches or displays (what makes it grow), or more deliveries
/// sent: at once once none is pending, so the status that ends a send is exact, and at most once a second while
/// the rest are still being sent.
final class ReachCache: Sendable {
    /// What changes a reach: fallbacks going out do not, until their devices fetch.
    private struct Counts: Equatable {
        var fetched: Int
        var displayed: Int
        var sent: Int

        init(_ counts: NotificationCounts) {
            fetched = counts.fetched
            displayed = counts.displayed
            sent = counts.tally.sent
        }
    }

    private struct Entry {
        var counts: Counts
        var countedAt: ContinuousClock.Instant
        var reach: NotificationReach
    }

    private let entries = Mutex<[Int64: Entry]>([:])
    static let freshFor = Duration.seconds(1)
    /// The most notifications remembered; past it the memory starts again.
    static let capacity = 1000

    /// Notification `id`'s reach given its `counts`, from memory or counted by `count`.
    func reach(of id: Int64, counts: NotificationCounts, count: () async throws -> NotificationReach) async rethrows -> NotificationReach {
        let now = ContinuousClock.now
        let current = Counts(counts)
        if let entry = entries.withLock({ $0[id] }),
            entry.counts == current
                || (entry.counts.fetched == current.fetched && entry.counts.displayed == current.displayed && counts.tally.pending > 0
                    && now - entry.countedAt < Self.freshFor)
        {
            return entry.reach
        }
        let reach = try await count()
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[id] = Entry(counts: current, countedAt: now, reach: reach)
        }
        return reach
    }
}
