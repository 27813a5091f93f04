public import Foundation
public import RichPushCore

/// Live Activities: the tokens devices register, each activity's state, and one push a device at a time.
public protocol ActivityRepository: Sendable {
    /// Keeps `token` as the push-to-start token of installation `installationId`, replacing the one before.
    func setPushToStartToken(_ token: String, of installationId: String, now: Date) async throws
    /// Keeps `token` as installation `installationId`'s update token of activity `activityId`; a device that missed a
    /// state while it had none gets the latest at once. False when there is no such activity.
    func setUpdateToken(_ token: String, of installationId: String, activity activityId: Int64, now: Date) async throws -> Bool
    /// Stores a new activity and a `start` push for each live APNs installation `audience` addresses; an installation
    /// without a push-to-start token fails at once with `activity.noPushToStartToken`.
    func start(_ activity: ActivityRecord, audience: TagExpression, audit: (Int64) -> AuditEntry?, now: Date) async throws -> ActivityRecord
    func activity(id: Int64) async throws -> ActivityRecord?
    /// Gives the activity a new content state (and alert and stale date) and each device an `update`, coalesced: a
    /// device that has not taken the previous state gets only this one. Nil when there is no such activity, or it ended.
    func update(id: Int64, contentState: String, alert: ActivityAlert?, staleDate: Date?, audit: AuditEntry?, now: Date) async throws
        -> ActivityRecord?
    /// Ends the activity: each device that was sent its start gets an `end`, with `dismissalDate` when given; one not
    /// sent it yet gets nothing. Nil when there is no such activity, or it ended before.
    func end(id: Int64, dismissalDate: Date?, audit: AuditEntry?, now: Date) async throws -> ActivityRecord?
    /// Records `finished` and claims up to `limit` pushes due whose device has the token their event needs, leased
    /// for `lease` seconds.
    func claimDue(recording finished: [(job: ActivityJob, outcome: DeliveryOutcome)], limit: Int, lease: TimeInterval, now: Date)
        async throws -> [ActivityJob]
    /// When the next push falls due, nil when none waits.
    func nextDue(now: Date) async throws -> Date?
    /// Up to `limit` devices of the activity, by installation id after `after`.
    func deliveries(of activityId: Int64, after: String?, limit: Int) async throws -> [ActivityDeliveryResult]
}
