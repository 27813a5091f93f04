public import Foundation
public import RichPushCore
import SQLKit

/// Claims on SQLite, where this process alone claims: what a claim takes is held in memory (``HeldDeliveries``)
/// rather than leased in its rows, every delivery is found through the pending index, and a claim reads on from where
/// the last one ended (``ClaimCursor``).
struct SQLiteClaims: OutboxClaims {
    let engine: any DatabaseEngine
    let held = HeldDeliveries()
    let cursor = ClaimCursor()

    var isShared: Bool { false }
    var writesSequences: Bool { false }

    func claimDue(
        recording finished: [RecordedAttempt], now: Date, limit: Int, lease: TimeInterval,
        audiencePlatforms: Set<Platform>, limits: CampaignLimits
    ) async throws -> ClaimedBatch {
        let held = self.held
        let withZones = limits.quietHours != nil
        let nowMs = EpochMilliseconds(now)
        let leaseUntil = EpochMilliseconds(now + lease)
        let start = cursor.start(at: nowMs)
        var taken: [Int64] = []
        do {
            let (batch, indexed, readOn) = try await engine.transaction(.deferred) { db in
                try await SQLOutbox.record(finished, now: now, in: db)
                let released = try await SQLNotificationRepository.releaseDue(now: now, in: db)
                let unclaimed = SQLOutbox.unclaimed(
                    try await held.notHeld(at: nowMs, in: "deliveries", id: "id", pending: DeliveryState.isPending, db: db),
                    heldBack: limits.heldBack,
                    pacedAhead: try await SQLOutbox.pacedAhead(at: nowMs, in: db))
                func take(_ predicate: any SQLExpression) async throws -> [SQLOutbox.ClaimedRow] {
                    let claimed = try await SQLOutbox.take(predicate, leasingUntil: nil, withZones: withZones, in: db)
                    held.hold(claimed.map(\.deliveryId), until: leaseUntil)
                    taken += claimed.map(\.deliveryId)
                    return claimed
                }
                func takeDue(in range: ClaimCursor.Range, limit: Int) async throws -> [SQLOutbox.ClaimedRow] {
                    let due = SQLOutbox.due(unclaimed: unclaimed, nowMs: nowMs, in: range, audiencePlatforms: audiencePlatforms, limit: limit)
                    return try await take(SQLBinaryExpression(SQLIdentifier("id"), .in, due.column("id").query))
                }
                var indexed = try await takeDue(in: start.map { .sameInstantAfter($0) } ?? .whole, limit: limit)
                if let start, indexed.count < limit {
                    indexed += try await takeDue(in: .laterInstants(start), limit: limit - indexed.count)
                }
                let readOn = indexed.count == limit && released.isEmpty
                let audiences = try await SQLOutbox.takeAudiences(
                    on: audiencePlatforms, nowMs: nowMs, unclaimed: unclaimed, skipLocked: nil, in: db, take: take)
                let batch = try await SQLOutbox.batch(
                    of: indexed + audiences, now: now, limits: limits, audiencePlatforms: audiencePlatforms, letGo: held.release, in: db)
                return (batch, indexed, readOn)
            }
            cursor.moved(from: start, at: nowMs, past: indexed, readOn: readOn)
            held.release(finished.deliveryIds)
            return batch
        } catch {
            // Nothing of the claim was committed: what it held is free again, and the next claim reads from the start.
            held.release(taken)
            cursor.restart()
            throw error
        }
    }

    func recordOutcomes(_ results: [RecordedAttempt], now: Date) async throws {
        guard !results.isEmpty else { return }
        try await engine.transaction(.deferred) { db in try await SQLOutbox.record(results, now: now, in: db) }
        held.release(results.deliveryIds)
    }

    func nextDeliveryDue(now: Date) async throws -> Date? {
        try await engine.read { db in try await SQLOutbox.nextIndexedDeliveryDue(at: EpochMilliseconds(now), in: db) }
    }

    func extendLease(of deliveries: [DeliveryKey], by lease: TimeInterval, now: Date) async throws {
        held.extend(deliveries.map(\.deliveryId), until: EpochMilliseconds(now + lease))
    }
}
