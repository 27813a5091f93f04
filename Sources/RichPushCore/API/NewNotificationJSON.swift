#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The body of `POST /api/notifications`: the campaign's fields (maybe a template's, overridden and filled in), when
/// it goes and expires, and its idempotency key. What is nil is left out, and the gateway (or the template) decides
/// it. The command line sends it and the gateway reads it, through its strict decoder.
///
/// The campaign's fields are the body's own, beside the others: `body.message` reads `body.campaign.message`.
@dynamicMemberLookup
public struct NewNotificationJSON: Codable, Sendable, Equatable {
    public var campaign: CampaignJSON
    public var deliverAt: String?
    /// A wall-clock time without a zone: each delivery falls due when its device's zone reaches it.
    public var deliverAtLocal: String?
    public var expiresAt: String?
    public var idempotencyKey: String?
    /// The template whose fields the ones given here override.
    public var template: String?
    /// The values of the template's placeholders.
    public var variables: [String: String]?
    /// An admin's notice rather than a campaign: neither counted toward the frequency cap nor held in quiet hours.
    public var transactional: Bool?
    /// The arms of an A/B test, each user getting one.
    public var variants: [VariantJSON]?

    /// One arm of an A/B test: a name, a weight and the visible fields its users get instead of the notification's
    /// own; what it leaves out is the notification's.
    public struct VariantJSON: Codable, Sendable, Equatable {
        public var name: String?
        public var weight: Int?
        public var message: String?
        public var title: String?
        public var sound: String?
        public var badge: Badge?
        public var category: String?
        public var threadId: String?
        public var data: [String: String]?
        public var localizations: [String: Localization]?
        /// The buttons this arm shows instead of the notification's.
        public var actions: [NotificationAction]?

        public init(
            name: String?, weight: Int?, message: String? = nil, title: String? = nil, sound: String? = nil, badge: Badge? = nil,
            category: String? = nil, threadId: String? = nil, data: [String: String]? = nil, localizations: [String: Localization]? = nil,
            actions: [NotificationAction]? = nil
        ) {
            self.actions = actions
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
        campaign = CampaignJSON(
            message: message, richType: richType, imageId: imageId, url: url, text: text, audience: audience, pushStyle: pushStyle)
        self.deliverAt = deliverAt.map(Timestamp.format)
        self.expiresAt = expiresAt.map(Timestamp.format)
        self.idempotencyKey = idempotencyKey
    }

    public subscript<Value>(dynamicMember field: WritableKeyPath<CampaignJSON, Value>) -> Value {
        get { campaign[keyPath: field] }
        set { campaign[keyPath: field] = newValue }
    }

    enum CodingKeys: String, CodingKey {
        case deliverAt, deliverAtLocal, expiresAt, idempotencyKey, template, variables, transactional, variants
    }

    public init(from decoder: any Decoder) throws {
        campaign = try CampaignJSON(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deliverAt = try container.decodeIfPresent(String.self, forKey: .deliverAt)
        deliverAtLocal = try container.decodeIfPresent(String.self, forKey: .deliverAtLocal)
        expiresAt = try container.decodeIfPresent(String.self, forKey: .expiresAt)
        idempotencyKey = try container.decodeIfPresent(String.self, forKey: .idempotencyKey)
        template = try container.decodeIfPresent(String.self, forKey: .template)
        variables = try container.decodeIfPresent([String: String].self, forKey: .variables)
        transactional = try container.decodeIfPresent(Bool.self, forKey: .transactional)
        variants = try container.decodeIfPresent([VariantJSON].self, forKey: .variants)
    }

    public func encode(to encoder: any Encoder) throws {
        try campaign.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(deliverAt, forKey: .deliverAt)
        try container.encodeIfPresent(deliverAtLocal, forKey: .deliverAtLocal)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(idempotencyKey, forKey: .idempotencyKey)
        try container.encodeIfPresent(template, forKey: .template)
        try container.encodeIfPresent(variables, forKey: .variables)
        try container.encodeIfPresent(transactional, forKey: .transactional)
        try container.encodeIfPresent(variants, forKey: .variants)
    }
}
