public import Foundation
public import RichPushCore

/// How the outbox claims on one engine, chosen once when the store opens: ``SQLiteClaims`` where this process alone
/// claims and holds what it claimed in memory, ``PostgresClaims`` where processes claim beside each other, with leases
/// in the rows and campaigns claimed by ranges of their sequences. ``SQLOutbox`` hands its claims to one of them; the
/// statements both use are its own.
protocol OutboxClaims: Sendable {
    /// Whether other gateway processes claim from the same outbox.
    var isShared: Bool { get }
    /// Whether a campaign's first attempts are written into their notification's sequence, to be claimed by ranges.
    var writesSequences: Bool { get }

    /// ``Outbox/claimDue(recording:now:limit:lease:limits:)``, with the outbox's `audiencePlatforms`.
    func claimDue(
        recording finished: [RecordedAttempt], now: Date, limit: Int, lease: TimeInterval,
        audiencePlatforms: Set<Platform>, limits: CampaignLimits
    ) async throws -> ClaimedBatch
    /// ``Outbox/recordOutcomes(_:now:)``.
    func recordOutcomes(_ results: [RecordedAttempt], now: Date) async throws
    /// ``Outbox/nextDeliveryDue(now:)``.
    func nextDeliveryDue(now: Date) async throws -> Date?
    /// ``Outbox/extendLease(of:by:now:)``.
    func extendLease(of deliveries: [DeliveryKey], by lease: TimeInterval, now: Date) async throws
}
