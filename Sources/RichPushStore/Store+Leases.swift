public import Foundation
public import RichPushCore
import SQLKit

/// How long claimed deliveries stay their claimer's own, and when an idle dispatcher looks again.
extension Store {
    /// When the next pending delivery that no lease in its row holds falls due, so an idle dispatcher sleeps exactly
    /// that long. A leased delivery is being sent, or was sent and its outcome is about to be recorded: counting it
    /// as due had an idle dispatcher claim nothing every 10 ms until then. One whose lease runs out is found within
    /// the idle interval, which bounds every wait. A notification's sequence is due while deliveries of it remain
    /// to be claimed, or a claim of them ran out of lease.
    public func nextDeliveryDue(now: Date = .now) async throws -> Date? {
        let nowMs = EpochMilliseconds(now)
        let inSequences = sequences != nil
        return try await engine.read { db in
            let indexed = try await db.select().column("due_at").from("deliveries").where(DeliveryState.isPending)
                .where(Self.outOfSequence).unleased(at: nowMs).orderBy("due_at").limit(1).first()?.optionalDate("due_at")
            guard inSequences, let inSequence = try await Self.nextSequenceDue(at: nowMs, in: db) else { return indexed }
            return indexed.map { min($0, inSequence) } ?? inSequence
        }
    }

    /// Keeps claimed deliveries that are still being sent to their claimer for another `lease`, so a batch that
    /// takes longer than the lease is not claimed and sent a second time by another process.
    public func extendLease(of jobs: [DeliveryJob], by lease: TimeInterval, now: Date = .now) async throws {
        if let held {
            return held.extend(jobs.map(\.deliveryId), until: EpochMilliseconds(now + lease))
        }
        let sequences = self.sequences
        let leaseUntil = EpochMilliseconds(now + lease)
        try await engine.transaction(.deferred) { db in
            // The claims' rows before the deliveries', in the order a record locks them.
            try await Self.extendSequenceClaims(of: jobs.map(\.deliveryId), in: sequences, until: leaseUntil, db: db)
            for chunk in jobs.map(\.key).chunked(Self.insertChunk) {
                try await db.update("deliveries").set("lease_until", to: leaseUntil)
                    .where(SQLDeliveryKeys(chunk)).where(DeliveryState.isPending)
                    .where("lease_until", .isNot, SQLLiteral.null).run()
            }
        }
    }

    func releaseAllClaims() async throws {
        try await engine.transaction { db in
            try await db.update("deliveries").set("lease_until", to: Int64?.none)
                .where(DeliveryState.isPending).where("lease_until", .isNot, SQLLiteral.null).run()
            try await db.update("state_pushes").set("claimed_until", to: Int64?.none).where("claimed_until", .isNot, SQLLiteral.null).run()
        }
    }
}

extension SQLPredicateBuilder {
    /// Deliveries no lease in their row holds at `nowMs`: never leased, or leased until before it.
    func unleased(at nowMs: Int64) -> Self {
        self.where { $0.where("lease_until", .is, SQLLiteral.null).orWhere("lease_until", .lessThan, nowMs) }
    }
}
