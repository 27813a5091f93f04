import RichPushCore
import Synchronization

/// The reach of recently read statuses, so a status followed twice a second (`richpush send --wait`, the console) does
/// not count a large campaign's every delivery each time: the reach is counted over them, the rest of the status
/// read from tallies.
///
/// A reach is counted again when the status counts more fetches or displays (what makes it grow), or more deliveries
/// sent: at once once none is pending, so the status that ends a send is exact, and at most once a second while
/// the rest are still being sent. A count of a large campaign's reach that took long is not made again within twenty
/// times as long, unless it is the one that ends a send: counting a million deliveries takes seconds, and their
/// devices fetch all the while, so a status followed through the send would otherwise keep a core counting. A small
/// campaign's count is made again whenever it grew, however long a busy machine took over the last one.
final class ReachCache<Timer: Clock>: Sendable where Timer.Duration == Duration, Timer: Sendable {
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
        var pending: Int
        var countedAt: Timer.Instant
        /// How long counting it took.
        var took: Duration
        var reach: NotificationReach
    }

    private let clock: Timer
    private let entries = Mutex<[Int64: Entry]>([:])
    static var freshFor: Duration { .seconds(1) }
    /// A count that took at least this long is slow: its reach stands `costFactor` times as long while its counts
    /// change.
    static var slowCount: Duration { .milliseconds(50) }
    static var costFactor: Int { 20 }
    /// The deliveries sent from which a slow count stands longer: below it a count is slow only when the machine is.
    static var largeCampaign: Int { 10_000 }
    /// The most notifications remembered; past it the memory starts again.
    static var capacity: Int { 1000 }

    init(clock: Timer) {
        self.clock = clock
    }

    /// Notification `id`'s reach given its `counts`, from memory or counted by `count`.
    func reach(of id: Int64, counts: NotificationCounts, count: () async throws -> NotificationReach) async rethrows -> NotificationReach {
        let start = clock.now
        let current = Counts(counts)
        let pending = counts.tally.pending
        if let entry = entries.withLock({ $0[id] }), Self.stands(entry, at: start, for: current, pending: pending) { return entry.reach }
        let reach = try await count()
        let entry = Entry(counts: current, pending: pending, countedAt: start, took: start.duration(to: clock.now), reach: reach)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[id] = entry
        }
        return reach
    }

    private static func stands(_ entry: Entry, at now: Timer.Instant, for current: Counts, pending: Int) -> Bool {
        if entry.counts == current { return true }
        let age = entry.countedAt.duration(to: now)
        let endsSend = pending == 0 && entry.pending > 0
        let reachUnchanged = entry.counts.fetched == current.fetched && entry.counts.displayed == current.displayed
        if pending > 0, reachUnchanged, age < freshFor { return true }
        return !endsSend && current.sent >= largeCampaign && entry.took >= slowCount && age < entry.took * costFactor
    }
}
