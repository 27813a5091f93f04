/// What a user may do: `admin` everything, `marketer` campaigns and images, `member` its own devices and feed.
public enum Role: String, Codable, Sendable, CaseIterable {
    case admin
    case marketer
    case member

    /// Admins and marketers address any audience and read every campaign.
    public var mayRunCampaigns: Bool { self != .member }

    /// Whether this role may do everything `other` may: what a token can be given, and what it keeps when its
    /// owner's role is lowered.
    public func includes(_ other: Role) -> Bool { rank >= other.rank }

    /// The lesser of this role and `other`.
    public func limited(to other: Role) -> Role { includes(other) ? other : self }

    private var rank: Int {
        switch self {
        case .member: 0
        case .marketer: 1
        case .admin: 2
        }
    }
}

/// The kind of rich payload a notification carries; travels as `richType` in every push.
public enum RichType: String, Codable, Sendable, CaseIterable {
    case img
    case url
    case text
}

/// How the push looks on iOS: a content-available background push, or a visible alert a service extension enriches.
public enum PushStyle: String, Codable, Sendable, CaseIterable {
    case silent
    case alert
}

/// The notification service an installation is reached through.
public enum Platform: String, Codable, Sendable, CaseIterable {
    case apns
    case fcm
    case wns
    /// Browsers and UnifiedPush distributors, through their push service (RFC 8030).
    case webpush
    case direct
}

/// Whether the user has read a notification, synced across the user's devices.
public enum ReadState: String, Codable, Sendable, CaseIterable {
    case unread
    case read
}

/// What the user did with a notification's alert, synced across the user's devices.
public enum UserActionState: String, Codable, Sendable, CaseIterable {
    case noInteraction
    case activated
    case dismissed
}

/// What a device reports having done with a notification, beyond the hub's hand-off.
public enum ReceiptEvent: String, Codable, Sendable, CaseIterable {
    case displayed
}

extension Platform {
    /// Whether `pushChannel` can be an address on this platform: APNs device tokens are hexadecimal (and become part
    /// of the request path); a Web Push channel is checked as a subscription where the gateway reads it; the other
    /// platforms' channels are opaque text.
    public func accepts(pushChannel: String) -> Bool {
        switch self {
        case .apns:
            (1...400).contains(pushChannel.utf8.count)
                && pushChannel.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }
        case .fcm, .wns, .webpush, .direct:
            true
        }
    }

    /// Whether a push channel is a secret the hub issued to one device (an APNs or FCM token, a WNS channel URI, a Web
    /// Push endpoint):
    /// whoever registers it holds that device, so it may move to another user's installation, as when a phone
    /// changes hands. A direct channel is free text anyone can type, and never moves across users.
    public var channelIsIssuedByHub: Bool {
        switch self {
        case .apns, .fcm, .wns, .webpush: true
        case .direct: false
        }
    }
}
