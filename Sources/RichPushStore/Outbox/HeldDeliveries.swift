import SQLKit
import Synchronization

/// The deliveries this process's dispatchers hold, each until its lease runs out, on an engine whose data no other
/// process claims from (SQLite).
///
/// With no other claimer to keep out, a claim need not write its lease into every row it takes: it reads the rows
/// and holds their ids here, and the next claim skips them. A crash forgets the holds, which is what a restart of an
/// exclusive store wants anyway. Writing the lease had cost a fan-out nearly half of its SQLite time.
final class HeldDeliveries: Sendable {
    private struct Holds {
        /// Delivery id → the epoch milliseconds its hold runs out.
        var leases: [Int64: Int64] = [:]
        /// The same ids in ascending order, kept so through each change: a claim reads them as ranges, and sorting them
        /// for each claim cost a fan-out to a hub 40 ms away (16 batches in flight, 16,000 held) 0.7 ms a claim of 1,000.
        var ascending: [Int64] = []

        /// Adds ids that were not held.
        mutating func insert(_ ids: [Int64]) {
            guard !ids.isEmpty else { return }
            let added = ids.sorted()
            // A claim takes rows after those held before it, unless some were let go behind them.
            if let last = ascending.last, last > added[0] {
                ascending = Self.merged(ascending, added)
            } else {
                ascending += added
            }
        }

        /// Removes ids that were held.
        mutating func remove(_ ids: [Int64]) {
            guard !ids.isEmpty else { return }
            let removed = ids.sorted()
            var kept: [Int64] = []
            kept.reserveCapacity(ascending.count)
            var next = removed.startIndex
            for id in ascending {
                while next < removed.endIndex, removed[next] < id { next += 1 }
                if next == removed.endIndex || removed[next] != id { kept.append(id) }
            }
            ascending = kept
        }

        private static func merged(_ first: [Int64], _ second: [Int64]) -> [Int64] {
            var result: [Int64] = []
            result.reserveCapacity(first.count + second.count)
            var (i, j) = (first.startIndex, second.startIndex)
            while i < first.endIndex, j < second.endIndex {
                if first[i] <= second[j] {
                    result.append(first[i])
                    i += 1
                } else {
                    result.append(second[j])
                    j += 1
                }
            }
            result += first[i...]
            result += second[j...]
            return result
        }
    }

    private let holds = Mutex(Holds())

    /// The ids held at `nowMs`, in ascending order, and those whose hold ran out by then: they are let go, and their
    /// claim counts as an attempt made.
    func held(at nowMs: Int64) -> (held: [Int64], lapsed: [Int64]) {
        holds.withLock { holds in
            let lapsed = holds.leases.compactMap { $0.value <= nowMs ? $0.key : nil }
            for id in lapsed { holds.leases[id] = nil }
            holds.remove(lapsed)
            return (holds.ascending, lapsed)
        }
    }

    func hold(_ ids: some Sequence<Int64>, until: Int64) {
        holds.withLock { holds in
            var added: [Int64] = []
            for id in ids where holds.leases.updateValue(until, forKey: id) == nil { added.append(id) }
            holds.insert(added)
        }
    }

    func release(_ ids: some Sequence<Int64>) {
        holds.withLock { holds in
            holds.remove(ids.filter { holds.leases.removeValue(forKey: $0) != nil })
        }
    }

    /// Extends the holds still in place; a delivery let go meanwhile stays free.
    func extend(_ ids: some Sequence<Int64>, until: Int64) {
        holds.withLock { holds in
            for id in ids where holds.leases[id] != nil { holds.leases[id] = until }
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
        return ids.isEmpty ? nil : SQLQueryString("NOT \(SQLIdSet(id, ascending: ids))")
    }
}
