public import Foundation
public import RichPushCore
import SQLKit

/// The outbox in the `deliveries` table. Claims go to the engine's ``OutboxClaims``; writing a notification's outbox
/// in chunks is the same on both engines.
public struct SQLOutbox: Outbox {
    let engine: any DatabaseEngine
    let claims: any OutboxClaims
    /// Platforms whose hub sends a notification once to its whole audience.
    let audiencePlatforms: Set<Platform>

    public var isShared: Bool { claims.isShared }

    /// Claims with nothing to record.
    public func claimDue(now: Date = .now, limit: Int, lease: TimeInterval, limits: CampaignLimits = CampaignLimits()) async throws
        -> ClaimedBatch
    {
        try await claimDue(recording: [(job: ClaimedDelivery, outcome: DeliveryOutcome)](), now: now, limit: limit, lease: lease, limits: limits)
    }

    public func claimDue<Attempt: DeliveryAttempt>(
        recording finished: [(job: Attempt, outcome: DeliveryOutcome)], now: Date = .now, limit: Int, lease: TimeInterval,
        limits: CampaignLimits = CampaignLimits()
    ) async throws -> ClaimedBatch {
        try await claims.claimDue(
            recording: [RecordedAttempt](finished), now: now, limit: limit, lease: lease, audiencePlatforms: audiencePlatforms, limits: limits)
    }

    public func recordOutcomes<Attempt: DeliveryAttempt>(_ results: [(job: Attempt, outcome: DeliveryOutcome)], now: Date = .now) async throws {
        try await claims.recordOutcomes([RecordedAttempt](results), now: now)
    }

    public func nextDeliveryDue(now: Date = .now) async throws -> Date? {
        try await claims.nextDeliveryDue(now: now)
    }

    public func extendLease<Attempt: DeliveryAttempt>(of jobs: [Attempt], by lease: TimeInterval, now: Date = .now) async throws {
        try await claims.extendLease(of: jobs.map(\.key), by: lease, now: now)
    }

    func releaseAllClaims() async throws {
        try await engine.transaction { db in
            try await db.update("deliveries").set("lease_until", to: Int64?.none)
                .where(DeliveryState.isPending).where("lease_until", .isNot, SQLLiteral.null).run()
            try await db.update("state_pushes").set("claimed_until", to: Int64?.none).where("claimed_until", .isNot, SQLLiteral.null).run()
            try await SQLFallbackQueue.releaseAllClaims(in: db)
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
        let inSequence = claims.writesSequences
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
            // Its deliveries may all have finished before the last chunk was written.
            if end == nil { try await WebhookSubscribers.read(in: db).enqueueCompletions(of: [id], now: now, in: db) }
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
