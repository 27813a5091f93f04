import SQLKit
import Synchronization

/// The deliveries this process's dispatchers hold, each until its lease runs out, on an engine whose data no other
/// process claims from (SQLite).
///
/// With no other claimer to keep out, a claim need not write its lease into every row it takes: it reads the rows
/// and holds their ids here, and the next claim skips them. A crash forgets the holds, which is what a restart of an
/// exclusive store wants anyway. Writing the lease had cost a fan-out nearly half of its SQLite time.
final class HeldDeliveries: Sendable {
    /// Delivery id → the epoch milliseconds its hold runs out.
    private let leases = Mutex<[Int64: Int64]>([:])

    /// The ids held at `nowMs`, and those whose hold ran out by then: they are let go, and their claim counts as an
    /// attempt made.
    func held(at nowMs: Int64) -> (held: [Int64], lapsed: [Int64]) {
        leases.withLock { leases in
            let lapsed = leases.compactMap { $0.value <= nowMs ? $0.key : nil }
            for id in lapsed { leases[id] = nil }
            return (Array(leases.keys), lapsed)
        }
    }

    func hold(_ ids: some Sequence<Int64>, until: Int64) {
        leases.withLock { leases in
            for id in ids { leases[id] = until }
        }
    }

    func release(_ ids: some Sequence<Int64>) {
        leases.withLock { leases in
            for id in ids { leases[id] = nil }
        }
    }

    /// Extends the holds still in place; a delivery let go meanwhile stays free.
    func extend(_ ids: some Sequence<Int64>, until: Int64) {
        leases.withLock { leases in
            for id in ids where leases[id] != nil { leases[id] = until }
        }
    }
}

extension HeldDeliveries {
    /// Leaves out of a claim from `table` the rows held at `nowMs` (by their column `id`); nil when none is held. Holds
    /// that ran out count the attempt their claim made in their rows still `pending`, as a lease running out in a row
    /// does.
    func notHeld(at nowMs: Int64, in table: String, id: String, pending: any SQLExpression, db: any SQLDatabase) async throws
        -> (any SQLExpression)?
    {
        let (ids, lapsed) = held(at: nowMs)
        for chunk in lapsed.chunked(SQLNotificationRepository.insertChunk) {
            try await db.update(table).set("attempts", to: SQLOutbox.oneMoreAttempt).where(SQLIdSet(id, in: chunk)).where(pending).run()
        }
        return ids.isEmpty ? nil : SQLQueryString("NOT \(SQLIdSet(id, in: ids))")
    }
}
