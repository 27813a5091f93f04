#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What recording a delivery's outcome needs to know of it: which delivery, the attempt its claim made, the
/// installation a hub may call gone, and whose device on which platform a webhook is told of.
public protocol DeliveryAttempt: Sendable {
    var deliveryId: Int64 { get }
    var notificationId: Int64 { get }
    var attempt: Int { get }
    var installationId: String { get }
    var owner: String { get }
    var platform: Platform { get }
}

/// A delivery a claim took, as its row says, with the attempt this claim makes.
public struct ClaimedDelivery: DeliveryAttempt, Equatable {
    public var deliveryId: Int64
    public var attempt: Int
    public var notificationId: Int64
    public var installationId: String
    public var owner: String
    public var platform: Platform
    public var pushChannel: String
    /// The installation's language, BCP 47, which picks the notification's localization.
    public var language: String?
    /// The A/B variant of the notification the owner was assigned; nil without variants.
    public var variant: String?

    public init(
        deliveryId: Int64, attempt: Int, notificationId: Int64, installationId: String, owner: String, platform: Platform,
        pushChannel: String, language: String?, variant: String?
    ) {
        self.deliveryId = deliveryId
        self.attempt = attempt
        self.notificationId = notificationId
        self.installationId = installationId
        self.owner = owner
        self.platform = platform
        self.pushChannel = pushChannel
        self.language = language
        self.variant = variant
    }
}

/// What the pushes of a claimed notification are made of: read once per claim, not once per delivery.
public struct ClaimedNotification: Sendable, Equatable {
    public var message: String
    public var richType: RichType
    public var pushStyle: PushStyle
    public var audience: String
    public var expiresAt: Date?
    public var content: PushContent
    public var purpose: NotificationPurpose
    public var variants: [Variant]
    /// Pushes a minute its deliveries are let go at; nil for no pace.
    public var deliveryRate: Int?

    public init(
        message: String, richType: RichType, pushStyle: PushStyle, audience: String, expiresAt: Date?, content: PushContent,
        purpose: NotificationPurpose, variants: [Variant], deliveryRate: Int? = nil
    ) {
        self.deliveryRate = deliveryRate
        self.message = message
        self.richType = richType
        self.pushStyle = pushStyle
        self.audience = audience
        self.expiresAt = expiresAt
        self.content = content
        self.purpose = purpose
        self.variants = variants
    }

    /// The message and content the users of `variant` see.
    public func shown(in variant: String?) -> (message: String, content: PushContent) {
        guard let variant, let chosen = variants.first(where: { $0.name == variant }) else { return (message, content) }
        return (chosen.message, chosen.content)
    }
}

/// One claim of the outbox: the deliveries to send, in id order, and their notifications.
public struct ClaimedBatch: Sendable, RandomAccessCollection {
    public var deliveries: [ClaimedDelivery]
    /// The notification of each delivery, by id.
    public var notifications: [Int64: ClaimedNotification]
    /// How many unread notifications each of ``ownersShowingUnreadCount`` has, read in the claim's transaction; an
    /// owner with none is left out.
    public var unreadCounts: [String: Int]
    /// Whether frequency caps or quiet hours were in force for the claim: they hold marketers' deliveries back device
    /// by device.
    public var limitsActive: Bool

    public init(
        deliveries: [ClaimedDelivery] = [], notifications: [Int64: ClaimedNotification] = [:], unreadCounts: [String: Int] = [:],
        limitsActive: Bool = false
    ) {
        self.deliveries = deliveries
        self.notifications = notifications
        self.unreadCounts = unreadCounts
        self.limitsActive = limitsActive
    }

    public var startIndex: Int { deliveries.startIndex }
    public var endIndex: Int { deliveries.endIndex }
    public subscript(position: Int) -> ClaimedDelivery { deliveries[position] }

    /// The owners whose push shows their unread count (a badge of `unread`), sorted.
    public var ownersShowingUnreadCount: [String] {
        Set(
            deliveries.filter { delivery in
                notifications[delivery.notificationId].map { $0.shown(in: delivery.variant).content.badge == .unread } ?? false
            }
            .map(\.owner)
        ).sorted()
    }
}
