public import Foundation
public import RichPushCore

/// Read and dismissed states on their way to a user's other devices, as silent pushes.
public protocol StatePushQueue: Sendable {
    /// Claims up to `limit` due state pushes for `lease` seconds.
    func claimDue(limit: Int, lease: TimeInterval, now: Date) async throws -> [StatePushClaim]
    /// Records what the hubs answered. A push sent while its state changed again leaves the newer state due when the
    /// interval ends; a device the hub calls gone is marked dead, as a delivery's would be.
    func recordOutcomes(_ results: [(claim: StatePushClaim, outcome: DeliveryOutcome)], now: Date) async throws
    /// When the next state push falls due, if one is waiting.
    func nextDue() async throws -> Date?
    /// The state pushes of a notification by state (`pending`, `sent`, `failed`): they are not part of its funnel.
    func counts(notificationId: Int64) async throws -> [String: Int]
}
