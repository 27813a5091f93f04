#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One device's share of a notification, as the dispatcher hands it to a hub.
public struct DeliveryJob: DeliveryAttempt, Equatable {
    public var deliveryId: Int64
    public var attempt: Int
    public var notificationId: Int64
    /// This device's push: its language's variant, its owner's badge.
    public var push: SilentPush
    public var audience: String
    /// When the push stops being worth delivering: the notification's `expiresAt`, else, once the dispatcher has
    /// applied ``keptFor(_:from:)``, the gateway's default lifetime from the moment it is sent. Hubs keep the push of
    /// an offline device until then.
    public var expiresAt: Date?
    public var installationId: String
    public var owner: String
    public var platform: Platform
    public var pushChannel: String
    /// The tag of the localization the push carries; nil for the default fields.
    public var language: String?
    /// The A/B variant of the notification the owner was assigned; nil without variants.
    public var variant: String?
    /// Whether other devices of the notification get other pushes (a variant per language, a badge per user): then
    /// no single push can serve a whole audience.
    public var variesByDevice: Bool
    /// An absolute, signed link to the notification's image, for alerts that show the image themselves (FCM's
    /// `notification.image`); nil without a public URL or an image.
    public var imageLink: String?

    public init(
        deliveryId: Int64, attempt: Int, notificationId: Int64, push: SilentPush, audience: String, expiresAt: Date?,
        installationId: String, owner: String, platform: Platform, pushChannel: String, language: String? = nil,
        variant: String? = nil, variesByDevice: Bool = false, imageLink: String? = nil
    ) {
        self.deliveryId = deliveryId
        self.attempt = attempt
        self.notificationId = notificationId
        self.push = push
        self.audience = audience
        self.expiresAt = expiresAt
        self.installationId = installationId
        self.owner = owner
        self.platform = platform
        self.pushChannel = pushChannel
        self.language = language
        self.variant = variant
        self.variesByDevice = variesByDevice
        self.imageLink = imageLink
    }

    public var pushStyle: PushStyle { push.style }

    /// The job with a lifetime: a notification without `expiresAt` is kept by the hubs for `lifetime` from `now`.
    public func keptFor(_ lifetime: TimeInterval, from now: Date) -> DeliveryJob {
        guard expiresAt == nil else { return self }
        var job = self
        job.expiresAt = now + lifetime
        return job
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
    /// The push was not attempted: its hub is failing (its circuit is open), so the delivery waits `after` seconds,
    /// and the attempt it was claimed for does not count.
    case postponed(after: TimeInterval, code: String, message: String)
}
