#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The body of `POST /api/notifications`, as a client sends it. What is nil is left out, and the gateway (or the
/// template) decides it.
///
/// The gateway reads the body through its own request types, which tell a field of the wrong JSON type (400) from a
/// value it refuses (422); this is the shape they accept.
public struct NewNotificationJSON: Codable, Sendable, Equatable {
    /// Nil (with `richType` and `audience`) where the template gives it.
    public var message: String?
    public var richType: RichType?
    public var imageId: Int64?
    public var url: String?
    public var text: String?
    public var audience: String?
    public var deliverAt: String?
    public var deliverAtLocal: String?
    public var expiresIn: String?
    public var template: String?
    public var variables: [String: String]?
    public var expiresAt: String?
    public var pushStyle: PushStyle?
    public var idempotencyKey: String?
    public var title: String?
    public var sound: String?
    public var badge: Badge?
    public var category: String?
    public var threadId: String?
    public var data: [String: String]?
    public var localizations: [String: Localization]?
    /// An admin's notice rather than a campaign.
    public var transactional: Bool?
    /// The arms of an A/B test.
    public var variants: [VariantJSON]?

    /// One arm of an A/B test: what it leaves out is the notification's.
    public struct VariantJSON: Codable, Sendable, Equatable {
        public var name: String
        public var weight: Int
        public var message: String?
        public var title: String?
        public var sound: String?
        public var badge: Badge?
        public var category: String?
        public var threadId: String?
        public var data: [String: String]?
        public var localizations: [String: Localization]?

        public init(
            name: String, weight: Int, message: String? = nil, title: String? = nil, sound: String? = nil, badge: Badge? = nil,
            category: String? = nil, threadId: String? = nil, data: [String: String]? = nil, localizations: [String: Localization]? = nil
        ) {
            self.name = name
            self.weight = weight
            self.message = message
            self.title = title
            self.sound = sound
            self.badge = badge
            self.category = category
            self.threadId = threadId
            self.data = data
            self.localizations = localizations
        }
    }

    public init(
        message: String?, richType: RichType?, imageId: Int64? = nil, url: String? = nil, text: String? = nil, audience: String?,
        deliverAt: Date? = nil, expiresAt: Date? = nil, pushStyle: PushStyle? = nil, idempotencyKey: String? = nil
    ) {
        self.message = message
        self.richType = richType
        self.imageId = imageId
        self.url = url
        self.text = text
        self.audience = audience
        self.deliverAt = deliverAt.map(Timestamp.format)
        self.expiresAt = expiresAt.map(Timestamp.format)
        self.pushStyle = pushStyle
        self.idempotencyKey = idempotencyKey
    }
}
