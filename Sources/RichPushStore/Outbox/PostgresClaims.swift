public import Foundation
public import RichPushCore
import SQLKit

/// Claims on PostgreSQL, where several processes claim at once: a claim leases what it takes in the rows, skips rows
/// another claimer holds, reads on from where this process's last claim ended (``ClaimCursor``), and takes a campaign's
/// first attempts by ranges of its sequence (``SequenceClaims``) after what the pending index has due.
struct PostgresClaims: OutboxClaims {
    let engine: any DatabaseEngine
    let cursor = ClaimCursor()
    let sequences = SequenceClaims()

    var isShared: Bool { true }
    var writesSequences: Bool { true }

    func claimDue(
        recording finished: [RecordedAttempt], now: Date, limit: Int, lease: TimeInterval,
        audiencePlatforms: Set<Platform>, limits: CampaignLimits
    ) async throws -> ClaimedBatch {
        let sequences = self.sequences
        let withZones = limits.quietHours != nil
        let nowMs = EpochMilliseconds(now)
        let leaseUntil = EpochMilliseconds(now + lease)
        let start = cursor.start(at: nowMs)
        do {
            let (batch, indexed, readOn, inSequence) = try await engine.transaction(.deferred) { db in
                try await SQLOutbox.endSequenceClaims(completedBy: finished.deliveryIds, in: sequences, db: db)
                try await SQLOutbox.record(finished, now: now, in: db)
                try await SQLOutbox.reopenLapsedSequenceClaims(at: nowMs, in: db)
                let released = try await SQLNotificationRepository.releaseDue(now: now, in: db)
                let pacedAhead = try await SQLOutbox.pacedAhead(at: nowMs, in: db)
                let unclaimed = SQLOutbox.unclaimed(SQLOutbox.unleased(at: nowMs), heldBack: limits.heldBack, pacedAhead: pacedAhead)
                let skipLocked = SQLOutbox.skipLockedClause(db)
                let due = SQLOutbox.due(
                    unclaimed: unclaimed, nowMs: nowMs, in: start.map { .after($0) } ?? .whole, audiencePlatforms: audiencePlatforms, limit: limit,
                    skipLocked: skipLocked)
                func take(_ predicate: any SQLExpression) async throws -> [SQLOutbox.ClaimedRow] {
                    try await SQLOutbox.take(predicate, leasingUntil: leaseUntil, withZones: withZones, in: db)
                }
                let indexed = try await Self.inIndexOrder(in: db) { try await take(Self.rows(of: due)) }
                var claimed = indexed
                let readOn = claimed.count == limit && released.isEmpty
                var ranges: [SQLOutbox.SequenceRange] = []
                if claimed.count < limit {
                    let inSequences = try await SQLOutbox.claimSequences(
                        upTo: limit - claimed.count, audiencePlatforms: audiencePlatforms, withZones: withZones,
                        heldBack: limits.heldBack.union(pacedAhead),
                        in: db)
                    claimed += inSequences.claimed
                    ranges = inSequences.ranges
                }
                claimed += try await SQLOutbox.takeAudiences(
                    on: audiencePlatforms, nowMs: nowMs, unclaimed: unclaimed, skipLocked: skipLocked, in: db, take: take)
                let batch = try await SQLOutbox.batch(
                    of: claimed, now: now, limits: limits, audiencePlatforms: audiencePlatforms, letGo: { _ in }, in: db)
                let inSequence = try await SQLOutbox.leaseSequenceRanges(ranges, of: batch.deliveries, until: leaseUntil, in: db)
                return (batch, indexed, readOn, inSequence)
            }
            for (claim, deliveryIds) in inSequence { sequences.hold(deliveryIds, in: claim) }
            cursor.moved(from: start, at: nowMs, past: indexed, readOn: readOn)
            sequences.finish(finished.deliveryIds)
            return batch
        } catch {
            // Nothing of the claim was committed: the next claim reads from the start.
            cursor.restart()
            throw error
        }
    }

    func recordOutcomes(_ results: [RecordedAttempt], now: Date) async throws {
        guard !results.isEmpty else { return }
        let sequences = self.sequences
        try await engine.transaction(.deferred) { db in
            try await SQLOutbox.endSequenceClaims(completedBy: results.deliveryIds, in: sequences, db: db)
            try await SQLOutbox.record(results, now: now, in: db)
        }
        sequences.finish(results.deliveryIds)
    }

    func nextDeliveryDue(now: Date) async throws -> Date? {
        let nowMs = EpochMilliseconds(now)
        return try await engine.read { db in
            let indexed = try await SQLOutbox.nextIndexedDeliveryDue(at: nowMs, in: db)
            guard let inSequence = try await SQLOutbox.nextSequenceDue(at: nowMs, in: db) else { return indexed }
            return indexed.map { min($0, inSequence) } ?? inSequence
        }
    }

    func extendLease(of deliveries: [DeliveryKey], by lease: TimeInterval, now: Date) async throws {
        let sequences = self.sequences
        let leaseUntil = EpochMilliseconds(now + lease)
        try await engine.transaction(.deferred) { db in
            // The claims' rows before the deliveries', in the order a record locks them.
            try await SQLOutbox.extendSequenceClaims(of: deliveries.map(\.deliveryId), in: sequences, until: leaseUntil, db: db)
            for chunk in deliveries.chunked(SQLNotificationRepository.insertChunk) {
                try await db.update("deliveries").set("lease_until", to: leaseUntil)
                    .where(SQLDeliveryKeys(chunk)).where(DeliveryState.isPending)
                    .where("lease_until", .isNot, SQLLiteral.null).run()
            }
        }
    }

    /// Runs `body`, a claim of due deliveries, planned to read them in order from `deliveries_pending_due`.
    ///
    /// PostgreSQL plans from statistics its autovacuum gathers up to a minute after a campaign's outbox is written:
    /// believing the outbox small, it planned each claim as a sort of every pending delivery, which took a
    /// 100,000-device fan-out's database 25 µs a push, and each claim longer as the outbox grew. Without the sort, the
    /// only plan left reads the index in order and stops at the claim's limit. SQLite plans it so already.
    private static func inIndexOrder<T>(in db: any SQLDatabase, _ body: () async throws -> T) async throws -> T {
        try await db.raw("SET LOCAL enable_sort = off").run()
        let result = try await body()
        try await db.raw("SET LOCAL enable_sort TO DEFAULT").run()
        return result
    }

    /// The rows `subquery` selects, as `ctid = ANY(ARRAY(subquery))`. PostgreSQL plans an
    /// `UPDATE … WHERE id IN (subquery)` as a hash join over a scan of the whole table, so each claim read every
    /// delivery ever written (25 ms a claim of 1,000 among 100,000, growing with the table), where the array has it
    /// take the subquery's rows first and then each one where it lies, without looking it up in an index. The
    /// subquery locks the rows, so none moves before the update reaches it; a row another claimer updated since the
    /// statement began is left for a later claim.
    private static func rows(of subquery: SQLSubqueryBuilder) -> any SQLExpression {
        let rows = SQLFunction("ANY", args: SQLFunction("ARRAY", args: subquery.column("ctid").query))
        return SQLBinaryExpression(SQLIdentifier("ctid"), .equal, rows)
    }
}
