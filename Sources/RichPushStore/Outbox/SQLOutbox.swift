public import Foundation
public import RichPushCore
import SQLKit

/// The outbox in the `deliveries` table.
public struct SQLOutbox: Outbox {
    let engine: any DatabaseEngine
    /// The claims of this process's dispatchers, on an engine no other process claims from; nil where leases are
    /// written into the claimed rows.
    let held: HeldDeliveries?
    /// Where this process's next claim starts among the pending deliveries, where leases are written into the rows.
    let claimCursor: ClaimCursor?
    /// What this process claimed in notifications' sequences and has not recorded, where other processes claim too.
    let sequences: SequenceClaims?
    /// Platforms whose hub sends a notification once to its whole audience.
    let audiencePlatforms: Set<Platform>

    public var isShared: Bool { !engine.isExclusive }

    public func claimDue(
        recording finished: [(job: DeliveryJob, outcome: DeliveryOutcome)] = [], now: Date = .now, limit: Int, lease: TimeInterval,
        audiencePlatforms: Set<Platform> = [], limits: CampaignLimits = CampaignLimits()
    ) async throws -> [DeliveryJob] {
        let held = self.held
        let sequences = self.sequences
        let withZones = limits.quietHours != nil
        let nowMs = EpochMilliseconds(now)
        let start = claimCursor?.start(at: nowMs)
        var taken: [Int64] = []
        do {
            let (jobs, last, readOn, inSequence) = try await engine.transaction(.deferred) { db in
                try await Self.record(finished, now: now, sequences: sequences, in: db)
                if sequences != nil { try await Self.reopenLapsedSequenceClaims(at: nowMs, in: db) }
                let released = try await SQLNotificationRepository.releaseDue(now: now, in: db)
                let excluded = try await Self.heldIds(held, at: nowMs, in: db)
                let skipLocked = Self.skipLockedClause(db)
                let leaseUntil = EpochMilliseconds(now + lease)
                let due = SQLSubqueryBuilder()
                _ = Self.claimable(due.from("deliveries"), nowMs: nowMs, excluding: excluded).where(Self.outOfSequence)
                    .where("due_at", .lessThanOrEqual, nowMs)
                if let start {
                    _ = due.where(SQLQueryString("(due_at, id) > (\(bind: start.dueAt), \(bind: start.id))"))
                }
                if !audiencePlatforms.isEmpty {
                    _ = due.where("platform", .notIn, audiencePlatforms.map(\.rawValue).sorted())
                }
                _ = due.orderBy("due_at").orderBy("id").limit(limit).skippingLocked(skipLocked)
                var claimed = try await Self.inIndexOrder(in: db) {
                    try await Self.take(
                        Self.rows(of: due, in: db), until: leaseUntil, leasing: held == nil, holding: held, withZones: withZones, in: db)
                }
                taken += claimed.map(\.deliveryId)
                let last = claimed.map { (dueAt: $0.dueAt, id: $0.deliveryId) }.max { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
                let readOn = claimed.count == limit && released.isEmpty
                var ranges: [SQLOutbox.SequenceRange] = []
                if sequences != nil, claimed.count < limit {
                    let inSequences = try await Self.claimSequences(
                        upTo: limit - claimed.count, audiencePlatforms: audiencePlatforms, withZones: withZones, in: db)
                    claimed += inSequences.claimed
                    ranges = inSequences.ranges
                }
                if !audiencePlatforms.isEmpty {
                    let audiences = try await Self.claimAudiences(
                        platforms: audiencePlatforms, nowMs: nowMs, excluding: excluded, skipLocked: skipLocked, in: db)
                    for chunk in audiences.chunked(SQLNotificationRepository.insertChunk) {
                        let audience = try await Self.take(
                            SQLDeliveryKeys(chunk), until: leaseUntil, leasing: held == nil, holding: held, withZones: withZones, in: db)
                        claimed += audience
                        taken += audience.map(\.deliveryId)
                    }
                }
                let jobs = try await Self.jobs(of: claimed, now: now, limits: limits, held: held, in: db)
                let inSequence = try await Self.leaseSequenceRanges(ranges, of: jobs, until: leaseUntil, in: db)
                return (jobs, last, readOn, inSequence)
            }
            for (claim, deliveryIds) in inSequence { sequences?.hold(deliveryIds, in: claim) }
            claimCursor?.moved(from: start, at: nowMs, to: last, readOn: readOn)
            held?.release(finished.map(\.job.deliveryId))
            sequences?.finish(finished.map(\.job.deliveryId))
            return jobs
        } catch {
            // Nothing of the claim was committed: what it held is free again, and the next claim reads from the start.
            held?.release(taken)
            claimCursor?.restart()
            throw error
        }
    }

    public func recordOutcomes(_ results: [(job: DeliveryJob, outcome: DeliveryOutcome)], now: Date = .now) async throws {
        guard !results.isEmpty else { return }
        let sequences = self.sequences
        try await engine.transaction(.deferred) { db in try await Self.record(results, now: now, sequences: sequences, in: db) }
        held?.release(results.map(\.job.deliveryId))
        sequences?.finish(results.map(\.job.deliveryId))
    }

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

    public func extendLease(of jobs: [DeliveryJob], by lease: TimeInterval, now: Date = .now) async throws {
        if let held {
            return held.extend(jobs.map(\.deliveryId), until: EpochMilliseconds(now + lease))
        }
        let sequences = self.sequences
        let leaseUntil = EpochMilliseconds(now + lease)
        try await engine.transaction(.deferred) { db in
            // The claims' rows before the deliveries', in the order a record locks them.
            try await Self.extendSequenceClaims(of: jobs.map(\.deliveryId), in: sequences, until: leaseUntil, db: db)
            for chunk in jobs.map(\.key).chunked(SQLNotificationRepository.insertChunk) {
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

    public func complete(of id: Int64, now: Date = .now, chunkWritten: @Sendable () -> Void = {}) async throws {
        var written = 0
        while true {
            let chunk = try await writeOutboxChunk(of: id, now: now)
            written += chunk.count
            chunkWritten()
            guard chunk.more else { break }
            try Task.checkCancellation()
        }
        // A rough sample is enough to show the planner an outbox's size and its notifications: one of 3,000 rows took
        // PostgreSQL 8 ms where the default 30,000 took 58, in the middle of the fan-out it plans for.
        if written > 0 { try await engine.refreshStatistics(of: ["deliveries"], detail: 10) }
    }

    private func writeOutboxChunk(of id: Int64, now: Date) async throws -> (count: Int, more: Bool) {
        let inSequence = sequences != nil
        let audiencePlatforms = self.audiencePlatforms
        return try await engine.transaction { db in
            // The row is locked for the chunk, so two writers of one outbox take turns.
            var read = db.select().columns("outbox_through", "audience", "deliver_at", "canceled_at", "deleted_at", "released_at", "variants")
                .from("notifications").where("id", .equal, id)
            if let lock = db.dialect.exclusiveSelectLockExpression { read = read.lockingClause(lock) }
            guard let row = try await read.first(), let through = try row.optionalString("outbox_through") else { return (0, false) }
            guard try row.optionalDate("canceled_at") == nil, try row.optionalDate("deleted_at") == nil,
                let audience = try? TagExpression(parsing: row.string("audience"))
            else {
                try await db.update("notifications").set("outbox_through", to: String?.none).where("id", .equal, id).run()
                return (0, false)
            }
            let after = through.isEmpty ? nil : through
            let end = try await SQLAudience.chunkEnd(of: audience, after: after, size: Self.outboxChunk, in: db)
            let written = try await SQLAudience.insertDeliveries(
                notificationId: id, audience: audience, due: SQLBind(EpochMilliseconds(try row.date("deliver_at"))), after: after,
                through: end, inSequence: inSequence, except: audiencePlatforms, in: db)
            if try row.optionalString("variants") != nil {
                // The variant each recipient was given when the notification was stored is on its feed entry.
                try await db.raw(
                    """
                    UPDATE deliveries SET variant = (SELECT f.variant FROM feed_entries f
                        WHERE f.notification_id = deliveries.notification_id AND f.username = deliveries.owner)
                    WHERE notification_id = \(bind: id) AND variant IS NULL
                    """
                ).run()
            }
            try await db.update("notifications").set("outbox_through", to: end)
                .set("outbox_claimed_at", to: EpochMilliseconds(now)).where("id", .equal, id).run()
            if written > 0, try row.optionalDate("released_at") != nil { try await engine.announce([.deliveriesDue], in: db) }
            return (written, end != nil)
        }
    }

    public func abandoned(stale: TimeInterval, now: Date = .now) async throws -> [Int64] {
        try await engine.transaction { db in
            let cutoff = EpochMilliseconds(now - stale)
            let ids = try await db.select().column("id").from("notifications").where("outbox_through", .isNot, SQLLiteral.null)
                .where("outbox_claimed_at", .lessThan, cutoff).orderBy("id").limit(10).skippingLocked(Self.skipLockedClause(db)).all()
                .map { try $0.int64("id") }
            guard !ids.isEmpty else { return [] }
            try await db.update("notifications").set("outbox_claimed_at", to: EpochMilliseconds(now)).where("id", .in, ids).run()
            return ids
        }
    }
}
