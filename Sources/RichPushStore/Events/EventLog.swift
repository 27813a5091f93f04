public import Foundation
public import RichPushCore

/// The direct stream's events of each user, in order: what a reconnecting stream reads from its cursor on.
public protocol EventLog: Sendable {
    /// Appends the direct channel's `rich` event for each delivery, once: a delivery dispatched again after a crash
    /// finds its event already there. Returns the users who got a new event.
    func appendRichEvents(for jobs: [DeliveryJob], now: Date) async throws -> Set<String>
    /// The events of `username` after `cursor`, oldest first: those for every device of the user, and with an
    /// `installationId` those for that device, or without one those for any device.
    func events(username: String, installationId: String?, after cursor: Int64, limit: Int) async throws -> [StreamEvent]
    /// The cursor of the newest event of any user: a stream that starts without one begins after it.
    func latestCursor() async throws -> Int64
}
