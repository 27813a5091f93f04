#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A user's view of one notification.
public struct FeedItem: Sendable, Equatable {
    public var id: Int64
    public var message: String
    public var richType: RichType
    /// The title, data and localizations a reader's language picks from.
    public var content: PushContent
    public var readState: ReadState
    public var userActionState: UserActionState
    /// The button the user last pressed, by id.
    public var action: String?
    public var createdAt: Date
    public var seq: Int64

    public init(
        id: Int64, message: String, richType: RichType, content: PushContent, readState: ReadState, userActionState: UserActionState,
        action: String? = nil, createdAt: Date, seq: Int64
    ) {
        self.action = action
        self.id = id
        self.message = message
        self.richType = richType
        self.content = content
        self.readState = readState
        self.userActionState = userActionState
        self.createdAt = createdAt
        self.seq = seq
    }
}

extension FeedItem {
    /// The notification's button `id` (of its variant, as its user sees it), if it has one.
    public func button(_ id: String) -> NotificationAction? {
        content.actions?.first { $0.id == id }
    }
}

/// A fetch of a notification's payload: by a user (with her credentials), by one of her installations (her
/// credentials and `?installationId=`), or by an installation alone (the per-device signed link of its alert).
public struct PayloadFetch: Hashable, Sendable {
    public var notificationId: Int64
    /// Who fetched with her credentials; nil for a signed link, whose installation's owner fetched.
    public var username: String?
    /// The installation the fetch named; a name not of the fetching user's installations counts for her alone.
    public var installationId: String?
    /// When the payload was served: the fetch's time, however long its record waits to be written.
    public var at: Date

    public init(notificationId: Int64, username: String?, installationId: String? = nil, at: Date) {
        self.notificationId = notificationId
        self.username = username
        self.installationId = installationId
        self.at = at
    }
}
