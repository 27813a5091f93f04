public import RichPushCore
import SQLKit
import Synchronization

/// Each notification's deliveries counted by state in `delivery_tallies`, in the transactions that write and finish
/// them, so a status reads a few rows where it counted the whole outbox: 0.25 s of PostgreSQL's CPU for each look at
/// a million-device campaign, which `richpush send --follow` takes every half second.
///
/// A delivery is pending until it finishes, and a finished delivery's state changes again only when a failed one is
/// retried: a tally's pending count grows as the outbox is written and moves to another state's as deliveries finish,
/// and back from the failed count on a retry. Each change is a row of its
/// own, summed when read: a transaction never waits on another's tally, as it would on a shared counter row held until
/// the other's commit (or deadlock with it, each holding one state's row and wanting the other's). A statement adds a
/// row or two for a thousand deliveries, so a million-device campaign's status sums a few thousand.
extension SQLOutbox {
    /// Counts `written` new pending deliveries of notification `id`.
    static func tallyWritten(_ written: Int, of id: Int64, in db: any SQLDatabase) async throws {
        guard written > 0 else { return }
        try await addToTallies([(id, .pending, written)], in: db)
    }

    /// Runs `update` on the pending deliveries it selects, which ends them in `state`, and moves them from their
    /// notifications' pending tallies to those of `state`.
    static func finishPending(_ update: SQLUpdateBuilder, as state: DeliveryState, in db: any SQLDatabase) async throws {
        let finishing = update.set("state", to: state.rawValue).where(DeliveryState.isPending).returning("notification_id")
        let moved: [Int64: Int]
        if !db.dialect.modifiesRowsInsideWith {
            // SQLite cannot update inside a `WITH`: the rows come back one by one, within the process.
            let finished = Mutex<(counts: [Int64: Int], failure: (any Error)?)>(([:], nil))
            try await finishing.run { row in
                do {
                    let id = try row.decode(column: "notification_id", as: Int64.self)
                    finished.withLock { $0.counts[id, default: 0] += 1 }
                } catch {
                    finished.withLock { $0.failure = error }
                }
            }
            let (counts, failure) = finished.withLock { ($0.counts, $0.failure) }
            if let failure { throw failure }
            moved = counts
        } else {
            // Counted in the statement: sending every finished row back cost the gateway 1.6 µs a push to decode.
            let counts = try await db.raw(
                "WITH finished AS (\(finishing.query)) SELECT notification_id, COUNT(*) AS n FROM finished GROUP BY notification_id"
            ).all()
            moved = try Dictionary(uniqueKeysWithValues: counts.map { (try $0.int64("notification_id"), try $0.int("n")) })
        }
        guard !moved.isEmpty else { return }
        try await addToTallies(moved.flatMap { id, count in [(id, DeliveryState.pending, -count), (id, state, count)] }, in: db)
    }

    /// Counts `count` failed deliveries of notification `id` that were made pending again.
    static func tallyReopened(_ count: Int, of id: Int64, in db: any SQLDatabase) async throws {
        try await addToTallies([(id, .failed, -count), (id, .pending, count)], in: db)
    }

    /// The deliveries of notification `id` by state.
    static func tally(of id: Int64, in db: any SQLDatabase) async throws -> DeliveryTally {
        // PostgreSQL sums integers into a numeric.
        let sum = SQLRaw("CAST(SUM(count) AS BIGINT)")
        let rows = try await db.select().column("state").column(sum, as: "n")
            .from("delivery_tallies").where("notification_id", .equal, id).groupBy("state").all()
        var tally = DeliveryTally()
        for row in rows {
            let count = try row.int("n")
            switch DeliveryState(rawValue: try row.string("state")) {
            case .pending: tally.pending = count
            case .sent: tally.sent = count
            case .failed: tally.failed = count
            case .expired: tally.expired = count
            case .canceled: tally.canceled = count
            case .capped: tally.capped = count
            case nil: break
            }
        }
        return tally
    }

    /// Adds each change to its notification's and state's tally.
    private static func addToTallies(_ changes: [(notificationId: Int64, state: DeliveryState, count: Int)], in db: any SQLDatabase)
        async throws
    {
        let rows = changes.map { [SQLBind($0.notificationId), SQLBind($0.state.rawValue), SQLBind($0.count)] as [any SQLExpression] }
        try await db.insert(into: "delivery_tallies").columns("notification_id", "state", "count").rows(rows).run()
    }
}
