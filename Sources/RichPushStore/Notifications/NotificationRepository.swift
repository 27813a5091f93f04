public import Foundation
public import RichPushCore

/// Rich notifications: created with their outbox and feed entries in one transaction, read, listed and removed.
public protocol NotificationRepository: Sendable {
    /// Stores a notification, a feed entry per recipient and its outbox (a delivery per addressed installation) in one
    /// transaction, all of the outbox or, when it is larger than its first chunk, that chunk; ``Outbox/complete(of:now:chunkWritten:)``
    /// writes the rest. With an `idempotencyKey` already used by the same sender, returns the first notification with
    /// `created` false and writes nothing. `audit` makes the trail's entry of the new notification's id.
    func create(
        _ draft: NotificationDraft, audit: @escaping @Sendable (Int64) -> AuditEntry?, now: Date
    ) async throws -> (notification: NotificationRecord, created: Bool)
    /// The notification with this id, including canceled and deleted ones.
    func notification(id: Int64) async throws -> NotificationRecord?
    /// Notifications newest first, those with an id below `before` when given.
    func list(limit: Int, before: Int64?) async throws -> [NotificationRecord]
    /// Makes notifications whose `deliverAt` has come visible in their recipients' feeds; returns their ids.
    func releaseDue(now: Date) async throws -> [Int64]
    /// Cancels a notification not yet sent, or recalls one already sent: either way its payload is gone, outstanding
    /// deliveries stop, it leaves every feed (the entries stay for the counts) and each recipient who could have seen it
    /// gets a `deleted` event, and a state push on each remote device.
    /// Returns the outcome and the users who were sent an event; `audit` makes the trail's entry of a cancel or recall.
    func remove(
        id: Int64, audit: @escaping @Sendable (RemovalOutcome) -> AuditEntry?, now: Date
    ) async throws -> (outcome: RemovalOutcome, notifiedUsers: [String])?
    /// Whether `username` is among the notification's recipients.
    func isRecipient(notificationId: Int64, username: String) async throws -> Bool
}
