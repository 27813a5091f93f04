public import Foundation
public import RichPushCore

/// Each user's view of the notifications addressed to it: read and dismissed states, fetches and receipts.
public protocol FeedRepository: Sendable {
    /// A user's feed. Without `since`: the newest `limit` items, newest first. With `since`: the items created or
    /// changed after that cursor, oldest change first. The returned cursor continues from where the page ends.
    func items(username: String, since: Int64?, limit: Int, now: Date) async throws -> (items: [FeedItem], cursor: Int64)
    /// Changes a user's state of a notification in the feed, and the button she pressed (`action`, an id of the
    /// notification's actions, which the caller checked), appends a `state` event for the user's devices and puts a
    /// state push for each of the user's remote devices but `origin` (the one that made the change) in the outbox.
    /// Returns nil when the notification is not in the user's feed, and no event when nothing changed.
    func updateState(
        username: String, notificationId: Int64, readState: ReadState?, userActionState: UserActionState?, action: String?,
        origin: String?, now: Date
    ) async throws -> (item: FeedItem, eventCursor: Int64?)?
    /// Takes the one run of `http` action `action` for a user: her state becomes read and activated with that action,
    /// as ``updateState(username:notificationId:readState:userActionState:action:origin:now:)`` makes it, and the run
    /// is marked as under way. `run` is false when the action ran (or is running) for her before; nil when the
    /// notification is not in her feed.
    func beginActionRun(username: String, notificationId: Int64, action: String, origin: String?, now: Date) async throws
        -> (item: FeedItem, eventCursor: Int64?, run: Bool)?
    /// Records the status the request of `http` action `action` got: 0 when no answer came.
    func recordActionStatus(username: String, notificationId: Int64, action: String, status: Int) async throws
    /// Removes a notification from a user's feed, appends a `deleted` event for the user's devices and puts a state
    /// push for each of its remote devices but `origin` in the outbox; returns the event's cursor, or nil when the
    /// notification is not in the user's visible feed. The user stays a recipient: the payload is readable until it
    /// expires, and the campaign's counts keep the entry.
    func remove(username: String, notificationId: Int64, origin: String?, now: Date) async throws -> Int64?
    /// One item of a user's visible feed.
    func item(username: String, notificationId: Int64, now: Date) async throws -> FeedItem?
    /// Notes the first time each recipient (and each installation a fetch named) fetched a payload, each at its
    /// fetch's time, all in one transaction; later fetches change nothing.
    func recordFetches(_ fetches: [PayloadFetch]) async throws
    /// Records that an installation showed a notification; returns false when it was recorded before.
    func recordReceipt(notificationId: Int64, installationId: String, event: ReceiptEvent, now: Date) async throws -> Bool
}

extension FeedRepository {
    /// A change of state with no button pressed.
    public func updateState(
        username: String, notificationId: Int64, readState: ReadState?, userActionState: UserActionState?, origin: String?, now: Date
    ) async throws -> (item: FeedItem, eventCursor: Int64?)? {
        try await updateState(
            username: username, notificationId: notificationId, readState: readState, userActionState: userActionState, action: nil,
            origin: origin, now: now)
    }
}
