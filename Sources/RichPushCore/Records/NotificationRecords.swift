#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The rich payload a notification carries.
public enum RichPayload: Sendable, Equatable {
    case image(id: Int64)
    case url(String)
    case text(String)

    public var richType: RichType {
        switch self {
        case .image: .img
        case .url: .url
        case .text: .text
        }
    }
}

/// What a sender asks for; validated before it reaches the store.
public struct NotificationDraft: Sendable {
    public var message: String
    public var payload: RichPayload
    public var audience: TagExpression
    public var pushStyle: PushStyle
    public var deliverAt: Date
    public var expiresAt: Date?
    public var createdBy: String
    public var idempotencyKey: String?
    public var content: PushContent
    /// The template it was made from.
    public var template: TemplateReference?
    /// Set for a delivery at a wall-clock time in each device's zone; `deliverAt` is then ignored.
    public var localDelivery: LocalDelivery?
    /// A marketer's notification is held to the frequency cap and quiet hours.
    public var purpose: NotificationPurpose
    /// An A/B test's arms; each recipient gets one, by ``Variant/assigned(to:of:among:)``.
    public var variants: [Variant]
    /// How long after its silent push a remote device that has not fetched the payload gets one alert instead.
    public var fallbackAfter: TimeInterval?
    /// Pushes a minute its dispatch is spread at; nil for as fast as the hubs take them.
    public var deliveryRate: Int?

    public init(
        message: String, payload: RichPayload, audience: TagExpression, pushStyle: PushStyle, deliverAt: Date,
        expiresAt: Date?, createdBy: String, idempotencyKey: String?, content: PushContent = PushContent(),
        template: TemplateReference? = nil, localDelivery: LocalDelivery? = nil, purpose: NotificationPurpose = .transactional,
        variants: [Variant] = [], fallbackAfter: TimeInterval? = nil, deliveryRate: Int? = nil
    ) {
        self.fallbackAfter = fallbackAfter
        self.deliveryRate = deliveryRate
        self.purpose = purpose
        self.variants = variants
        self.template = template
        self.localDelivery = localDelivery
        self.message = message
        self.payload = payload
        self.audience = audience
        self.pushStyle = pushStyle
        self.deliverAt = deliverAt
        self.expiresAt = expiresAt
        self.createdBy = createdBy
        self.idempotencyKey = idempotencyKey
        self.content = content
    }
}

/// Why a notification is sent, which decides whether the campaign limits (``CampaignLimits``) hold it.
public enum NotificationPurpose: String, Sendable {
    /// A marketer's or an admin's campaign: counted toward the frequency cap, and held back in quiet hours.
    case marketing
    /// A member's own send, or an admin's marked `"transactional": true`: never counted, capped or held back.
    case transactional
}

/// A stored rich notification.
public struct NotificationRecord: Sendable, Equatable {
    public var id: Int64
    public var message: String
    public var payload: RichPayload
    public var audience: String
    public var pushStyle: PushStyle
    public var createdBy: String
    public var createdAt: Date
    public var deliverAt: Date
    public var expiresAt: Date?
    public var canceledAt: Date?
    public var deletedAt: Date?
    /// Title, sound, badge, category, thread, data and localizations.
    public var content: PushContent
    /// The template it was made from.
    public var template: TemplateReference?
    /// The wall-clock time of a delivery in each device's zone.
    public var deliverAtLocal: LocalTime?
    /// The distinct instants its deliveries fall due, earliest first, for a delivery in each device's zone; empty
    /// otherwise (they all fall due at `deliverAt`).
    public var dueTimes: [Date] = []
    public var purpose: NotificationPurpose = .transactional
    public var variants: [Variant] = []
    /// Whether every delivery is written; a large outbox is written in chunks after its notification, and the
    /// dispatcher sends the first while the last are written.
    public var outboxComplete = true
    /// How long after its silent push a remote device that has not fetched the payload gets one alert instead.
    public var fallbackAfter: TimeInterval?
    /// Pushes a minute its dispatch is spread at; nil for as fast as the hubs take them.
    public var deliveryRate: Int?

    public init(
        id: Int64, message: String, payload: RichPayload, audience: String, pushStyle: PushStyle, createdBy: String, createdAt: Date, deliverAt: Date,
        expiresAt: Date? = nil, canceledAt: Date? = nil, deletedAt: Date? = nil, content: PushContent, template: TemplateReference? = nil,
        deliverAtLocal: LocalTime? = nil, dueTimes: [Date] = [], purpose: NotificationPurpose = .transactional, variants: [Variant] = [],
        outboxComplete: Bool = true, fallbackAfter: TimeInterval? = nil, deliveryRate: Int? = nil
    ) {
        self.fallbackAfter = fallbackAfter
        self.deliveryRate = deliveryRate
        self.id = id
        self.message = message
        self.payload = payload
        self.audience = audience
        self.pushStyle = pushStyle
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.deliverAt = deliverAt
        self.expiresAt = expiresAt
        self.canceledAt = canceledAt
        self.deletedAt = deletedAt
        self.content = content
        self.template = template
        self.deliverAtLocal = deliverAtLocal
        self.dueTimes = dueTimes
        self.purpose = purpose
        self.variants = variants
        self.outboxComplete = outboxComplete
    }

    public var richType: RichType { payload.richType }

    /// The next instant after `now` at which deliveries fall due, while any is still to come.
    public func nextDueAt(after now: Date) -> Date? {
        dueTimes.isEmpty ? (deliverAt > now ? deliverAt : nil) : dueTimes.first { $0 > now }
    }

    /// The payload a reader of `localization` gets: its own text or link, else the default one.
    public func payload(in localization: Localization?) -> RichPayload {
        switch payload {
        case .image: payload
        case .url(let url): .url(localization?.url ?? url)
        case .text(let text): .text(localization?.text ?? text)
        }
    }

    /// Whether its payload is gone: canceled, recalled or past `expiresAt`.
    public func isGone(at now: Date) -> Bool {
        canceledAt != nil || deletedAt != nil || (expiresAt.map { $0 <= now } ?? false)
    }
}

/// What a retry of a notification's failed deliveries did.
public enum RetryOutcome: Sendable, Equatable {
    /// This many failed deliveries are pending again.
    case retried(Int)
    case notFound
    /// The notification was canceled or recalled: nothing of it is sent again.
    case removed
    /// The notification expired: its pushes are no longer worth sending.
    case expired
}

/// What `DELETE /api/notifications/{id}` did.
public enum RemovalOutcome: Sendable, Equatable {
    /// Nothing had been sent: it will never be.
    case canceled
    /// Already sent: recalled from every feed.
    case deleted
    /// It was canceled or deleted before.
    case alreadyRemoved
}
