import Synchronization

/// Where this process's next claim starts reading the pending deliveries.
///
/// On PostgreSQL a delivery leaves its entry in `deliveries_pending_due` when it is leased and, once finished, until
/// a vacuum removes it: a claim that read the index from its start stepped over every delivery in flight and every
/// one sent since the last vacuum. A million-device fan-out's claim of 1,000 read for 12.5 ms near its end, against
/// 2.3 ms after a vacuum. On SQLite the deliveries in flight keep their entries (their holds are in memory,
/// ``HeldDeliveries``), and a claim from the start stepped over each of them, testing it against every held range:
/// with 16 batches at a hub 40 ms away, 2.4 ms a claim of 1,000 against 0.4 from the cursor. So a claim starts after
/// the last row the previous claim took, in `(due_at, id)` order.
///
/// A delivery can become claimable again behind that point: another claimer let go of rows it skipped past (a failed
/// transaction), a lease ran out (its claimer died), a notification was released with an earlier due time, a retry
/// was set due at an instant already passed. Such rows wait at most ``restartInterval`` for a claim that reads from
/// the start again, which every claim does after one that came up short or released notifications.
final class ClaimCursor: Sendable {
    /// The last row a claim took, in the order claims read them, and when claims last read from the start.
    struct Position: Sendable {
        var dueAt: Int64
        var id: Int64
        var restartedAt: Int64
    }

    /// The part of the pending index a claim reads, in `(due_at, id)` order.
    enum Range {
        /// Every row due by the claim's instant.
        case whole
        /// The rows after a position due by the claim's instant, as one row-value comparison, which PostgreSQL seeks
        /// in the index.
        case after(Position)
        /// The rows due at a position's instant after it. SQLite seeks a row value by its first column alone and
        /// would step over every row due at that instant before it, so it reads on from a position in two parts:
        /// this, then ``laterInstants(_:)``.
        case sameInstantAfter(Position)
        /// The rows due after a position's instant and by the claim's.
        case laterInstants(Position)
    }

    /// How long claims go on from where the last one ended before one reads from the start again, in milliseconds.
    static let restartInterval: Int64 = 1000

    private let position = Mutex<Position?>(nil)

    /// Where a claim at `nowMs` starts reading: after the returned position, or from the start when nil.
    func start(at nowMs: Int64) -> Position? {
        position.withLock { position in
            guard let current = position, nowMs - current.restartedAt < Self.restartInterval, nowMs >= current.restartedAt else {
                position = nil
                return nil
            }
            return current
        }
    }

    /// Moves the cursor after a committed claim at `nowMs` that started at `start` and took `claimed` from the index;
    /// `readOn` is false for a claim that came up short or released notifications, so the next reads from the start.
    func moved(from start: Position?, at nowMs: Int64, past claimed: [SQLOutbox.ClaimedRow], readOn: Bool) {
        let last = claimed.lazy.map { (dueAt: $0.dueAt, id: $0.deliveryId) }.max { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
        position.withLock { position in
            guard readOn, let last else {
                position = nil
                return
            }
            position = Position(dueAt: last.dueAt, id: last.id, restartedAt: start?.restartedAt ?? nowMs)
        }
    }

    /// Reads from the start at the next claim: what the failed claim held is free again.
    func restart() {
        position.withLock { $0 = nil }
    }
}
