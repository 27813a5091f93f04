#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One device's share of a notification, as the dispatcher hands it to a hub.
public struct DeliveryJob: Sendable, Equatable {
    public var deliveryId: Int64
    public var attempt: Int
    public var notificationId: Int64
    public var message: String
    public var richType: RichType
    public var pushStyle: PushStyle
    public var audience: String
    public var expiresAt: Date?
    public var installationId: String
    public var owner: String
    public var platform: Platform
    public var pushChannel: String

    public init(
        deliveryId: Int64, attempt: Int, notificationId: Int64, message: String, richType: RichType, pushStyle: PushStyle,
        audience: String, expiresAt: Date?, installationId: String, owner: String, platform: Platform, pushChannel: String
    ) {
        self.deliveryId = deliveryId
        self.attempt = attempt
        self.notificationId = notificationId
        self.message = message
        self.richType = richType
        self.pushStyle = pushStyle
        self.audience = audience
        self.expiresAt = expiresAt
        self.installationId = installationId
        self.owner = owner
        self.platform = platform
        self.pushChannel = pushChannel
    }

    public var push: SilentPush {
        SilentPush(richId: notificationId, richType: richType, richMessage: message, style: pushStyle)
    }
}

/// What became of one delivery attempt.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The hub accepted the push.
    case sent
    /// The hub asked to try again later.
    case retry(after: TimeInterval, code: String, message: String)
    /// The push will never be accepted.
    case failed(code: String, message: String)
    /// The device no longer exists: fail and stop sending to it until it registers again.
    case deviceGone(code: String, message: String)
}
