public import Foundation
public import RichPushCore

/// The installations whose registrations in a remote hub (Notification Hubs) must be brought in step: queued with each change, in its transaction.
public protocol MirrorQueue: Sendable {
    /// Claims up to `limit` due syncs for `lease` and reads each installation's current state.
    func claim(now: Date, limit: Int, lease: TimeInterval) async throws -> [MirrorTask]
    /// The hub has the state `task` read: done, unless the installation changed again meanwhile.
    func finish(_ task: MirrorTask) async throws
    /// The hub refused or could not be reached: try again after `delay`.
    func postpone(_ task: MirrorTask, delay: TimeInterval, error: String, now: Date) async throws
    /// When the next sync falls due.
    func nextDue() async throws -> Date?
}
