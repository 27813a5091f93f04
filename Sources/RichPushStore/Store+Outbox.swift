public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Deliveries written with their notification: the dispatcher's first claims, sent while the rest is written.
    static let firstOutboxChunk = 2_000
    /// Deliveries written per transaction after the first chunk: few enough that the dispatcher's claims, which wait
    /// for the writer between chunks on SQLite, are held up for some 20 ms at most, so the first pushes go out at
    /// nearly the full rate while the rest is written (50,000 held them up to 100 ms: 0.67x h2load from the POST
    /// against 0.70x); each chunk continues from where the last ended, so more chunks add only their commits.
    static let outboxChunk = 10_000

    /// Writes the rest of notification `id`'s outbox, a chunk per transaction, and calls `chunkWritten` after each
    /// commit; stops at once if the notification is canceled or recalled meanwhile. The chunks follow the installations'
    /// order, so a process that completes an outbox another began (``abandonedOutboxes(stale:now:)``) writes each
    /// delivery once. A cancelled task stops between chunks with `CancellationError`, leaving the rest to whoever
    /// completes the outbox next. Once the outbox is whole, the planner's statistics of the outbox are refreshed: a
    /// campaign's results are often exported right after it.
    public func completeOutbox(of id: Int64, now: Date = .now, chunkWritten: @Sendable () -> Void = {}) async throws {
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

    /// Writes the next chunk of `id`'s outbox; how many deliveries it wrote and whether more is to come.
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
            let end = try await Self.chunkEnd(of: audience, after: after, size: Self.outboxChunk, in: db)
            let written = try await Self.insertDeliveries(
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

    /// Notifications whose outbox was begun and not completed, untouched for `stale` (their writer died): each claimed
    /// for this process, so one process completes it.
    public func abandonedOutboxes(stale: TimeInterval, now: Date = .now) async throws -> [Int64] {
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
