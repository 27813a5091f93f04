public import Foundation
public import RichPushCore
import SQLKit

/// The fallbacks in the `fallbacks` table: one alert-style push to each remote device that has not fetched a
/// notification's payload within its `fallback.after` of the silent push.
///
/// A fallback is made in the transaction that records its silent push as sent (``schedule(_:now:in:)``), so a crash
/// loses none, and keyed by its delivery, so none is made twice. A claim takes the due ones, leased in their rows on a
/// shared store and held in memory on an exclusive one (as ``SQLiteClaims`` holds deliveries: writing the lease into
/// every row had made a fallback cost twice a silent push's writes), and ends, without sending them, those whose user
/// fetched, showed, read, dismissed or removed the notification on any device meanwhile, or whose notification was
/// recalled, canceled or expired, or whose device is gone. The rest come back as deliveries of an alert-style
/// notification, of which ``PushComposer`` builds the pushes as it does for the outbox.
public struct SQLFallbackQueue: DeliveryQueue {
    let engine: any DatabaseEngine
    /// What this process's claims hold on an exclusive store; nil on a shared one, whose claims lease rows.
    let held: HeldDeliveries?
    public var isShared: Bool { held == nil }
    /// Platforms whose hub sends a notification once to its whole audience: it cannot send one device's fallback.
    let audiencePlatforms: Set<Platform>

    /// The platforms whose devices get a fallback: the direct stream is its own delivery and needs none.
    public static let platforms: Set<Platform> = [.apns, .fcm, .wns, .webpush]

    public func claimDue(now: Date = .now, limit: Int, lease: TimeInterval) async throws -> ClaimedBatch {
        try await claimDue(
            recording: [(job: ClaimedDelivery, outcome: DeliveryOutcome)](), now: now, limit: limit, lease: lease, limits: CampaignLimits())
    }

    /// The frequency cap counted the notification when its silent push went, so its fallback is not counted again;
    /// quiet hours hold a marketer's fallback until they end on its device's clock, as they hold its pushes.
    public func claimDue<Attempt: DeliveryAttempt>(
        recording finished: [(job: Attempt, outcome: DeliveryOutcome)], now: Date = .now, limit: Int, lease: TimeInterval,
        limits: CampaignLimits = CampaignLimits()
    ) async throws -> ClaimedBatch {
        let audiencePlatforms = self.audiencePlatforms
        let held = self.held
        let recorded = [RecordedAttempt](finished)
        // Most looks find nothing due: a read answers them without taking the writer.
        if finished.isEmpty, try await nextDeliveryDue(now: now).map({ $0 > now }) ?? true { return ClaimedBatch() }
        var taken: [Int64] = []
        do {
            let batch = try await engine.transaction { db in
                try await Self.record(recorded, now: now, in: db)
                let nowMs = EpochMilliseconds(now)
                let due = SQLSubqueryBuilder()
                _ = due.column("delivery_id").from("fallbacks").where(FallbackState.isPending).where("due_at", .lessThanOrEqual, nowMs)
                    .where(SQLOutbox.unleased(at: nowMs))
                if let notHeld = try await held?.notHeld(at: nowMs, in: "fallbacks", id: "delivery_id", pending: FallbackState.isPending, db: db) {
                    _ = due.where(notHeld)
                }
                _ = due.orderBy("due_at").limit(limit).skippingLocked(SQLOutbox.skipLockedClause(db))
                var ended: [String: [Int64]] = [:]
                var quiet: [Date: [Int64]] = [:]
                var live: [ClaimedDelivery] = []
                for candidate in try await Self.candidates(SQLBinaryExpression(SQLColumn("delivery_id", table: "fb"), .in, due.query), in: db) {
                    if let reason = candidate.reasonToSkip(at: now, audiencePlatforms: audiencePlatforms) {
                        ended[reason, default: []].append(candidate.delivery.deliveryId)
                    } else if let end = candidate.quietUntil(limits, now: now) {
                        quiet[end, default: []].append(candidate.delivery.deliveryId)
                    } else {
                        live.append(candidate.delivery)
                    }
                }
                for (reason, ids) in ended.sorted(by: { $0.key < $1.key }) {
                    try await db.update("fallbacks").set("state", to: FallbackState.skipped).set("finished_at", to: nowMs)
                        .set("lease_until", to: Int64?.none).set("reason", to: reason).where(SQLIdSet("delivery_id", in: ids)).run()
                }
                for (end, ids) in quiet.sorted(by: { $0.key < $1.key }) {
                    try await db.update("fallbacks").set("due_at", to: EpochMilliseconds(end)).set("reason", to: "delivery.quietHours")
                        .where(SQLIdSet("delivery_id", in: ids)).run()
                }
                guard !live.isEmpty else { return ClaimedBatch() }
                if let held {
                    taken = live.map(\.deliveryId)
                    held.hold(taken, until: EpochMilliseconds(now + lease))
                } else {
                    try await db.update("fallbacks").set("lease_until", to: EpochMilliseconds(now + lease))
                        .set("attempts", to: SQLOutbox.oneMoreAttempt).where(SQLIdSet("delivery_id", in: live.map(\.deliveryId))).run()
                }
                var notifications = try await SQLOutbox.claimedNotifications(Set(live.map(\.notificationId)), in: db)
                for id in notifications.keys { notifications[id]?.pushStyle = .alert }
                var batch = ClaimedBatch(deliveries: live.sorted { $0.deliveryId < $1.deliveryId }, notifications: notifications)
                let badgeOwners = batch.ownersShowingUnreadCount
                if !badgeOwners.isEmpty { batch.unreadCounts = try await SQLFeedRepository.unreadCounts(of: badgeOwners, now: now, in: db) }
                return batch
            }
            held?.release(recorded.deliveryIds)
            return batch
        } catch {
            // Nothing of the claim was committed: what it held is free again.
            held?.release(taken)
            throw error
        }
    }

    public func recordOutcomes<Attempt: DeliveryAttempt>(_ results: [(job: Attempt, outcome: DeliveryOutcome)], now: Date = .now) async throws {
        guard !results.isEmpty else { return }
        let recorded = [RecordedAttempt](results)
        try await engine.transaction { db in try await Self.record(recorded, now: now, in: db) }
        held?.release(recorded.deliveryIds)
    }

    public func nextDeliveryDue(now: Date = .now) async throws -> Date? {
        try await engine.read { db in
            try await db.select().column("due_at").from("fallbacks").where(FallbackState.isPending)
                .where(SQLOutbox.unleased(at: EpochMilliseconds(now))).orderBy("due_at").limit(1).first()?.optionalDate("due_at")
        }
    }

    public func extendLease<Attempt: DeliveryAttempt>(of jobs: [Attempt], by lease: TimeInterval, now: Date = .now) async throws {
        guard !jobs.isEmpty else { return }
        let ids = jobs.map(\.deliveryId)
        if let held { return held.extend(ids, until: EpochMilliseconds(now + lease)) }
        try await engine.transaction { db in
            for chunk in ids.chunked(SQLNotificationRepository.insertChunk) {
                try await db.update("fallbacks").set("lease_until", to: EpochMilliseconds(now + lease))
                    .where(SQLIdSet("delivery_id", in: Array(chunk))).where("state", .equal, FallbackState.pending).run()
            }
        }
    }

    /// Ends the fallbacks of notification `id` still to be sent (to `owner` alone, when given) for `reason`: in the
    /// transaction that recalls or cancels it, or in the one that records a user's first fetch of its payload. A claim
    /// would end hers anyway (it checks the fetch again, and the displays, reads and dismissals that follow a fetch);
    /// ending them as the fetches come leaves a deadline's claims the fallbacks that go.
    static func skipPending(of id: Int64, owner: String? = nil, reason: String, now: Date, in db: any SQLDatabase) async throws {
        let update = db.update("fallbacks").set("state", to: FallbackState.skipped).set("finished_at", to: EpochMilliseconds(now))
            .set("lease_until", to: Int64?.none).set("reason", to: reason).where("notification_id", .equal, id)
            .where("state", .equal, FallbackState.pending)
        if let owner { _ = update.where("owner", .equal, owner) }
        try await update.run()
    }

    /// Frees every lease: on an exclusive store at start, the claims of a process that ended are nobody's.
    static func releaseAllClaims(in db: any SQLDatabase) async throws {
        try await db.update("fallbacks").set("lease_until", to: Int64?.none).where("state", .equal, FallbackState.pending)
            .where("lease_until", .isNot, SQLLiteral.null).run()
    }
}

/// Where a fallback stands.
enum FallbackState {
    static let pending = "pending"
    /// `state = 'pending'` with the state a literal, so the planners can read the partial index of pending fallbacks
    /// by due time (a bound value matched no index: each claim sorted every fallback of the table).
    static let isPending = SQLBinaryExpression(SQLIdentifier("state"), .equal, SQLLiteral.string(pending))
    static let sent = "sent"
    static let failed = "failed"
    static let skipped = "skipped"
}
