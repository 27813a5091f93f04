/// A notification as the API describes it: `/info`, the list, and the answer to a create. Times are RFC 3339 strings
/// in UTC.
public struct NotificationJSON: Codable, Sendable, Equatable {
    public var id: Int64
    public var message: String
    public var richType: RichType
    public var audience: String
    public var state: NotificationState
    public var createdBy: String
    public var createdAt: String
    public var deliverAt: String
    /// Always written, null when unset, as `Public/openapi.yaml` lists it.
    public var expiresAt: String?
    /// Set once recalled.
    public var deletedAt: String?
    public var pushStyle: PushStyle
    public var imageId: Int64?
    public var url: String?
    /// A signed relative link to the payload that works without credentials for a while.
    public var payloadUrl: String
    public var title: String?
    public var sound: String?
    public var badge: Badge?
    public var category: String
    public var threadId: String?
    public var data: [String: String]
    public var localizations: [String: Localization]
    /// The localization the reader's `Accept-Language` picked for `message`, `title` and `url`.
    public var language: String?
    public var template: TemplateJSON?
    public var deliverAtLocal: String?
    /// Neither counted toward the frequency cap nor held in quiet hours.
    public var transactional: Bool
    public var variants: [VariantJSON]?
    /// The fetch deadline, with its `after` as an ISO 8601 duration.
    public var fallback: FallbackJSON?
    /// Pushes a minute its dispatch is spread at.
    public var deliveryRate: Int?
    /// The buttons; an `http` action's address, method and body only for marketers and admins.
    public var actions: [NotificationAction]?
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    public var channel: String?

    /// The template, and its version, a notification was made from.
    public struct TemplateJSON: Codable, Sendable, Equatable {
        public var name: String
        public var version: Int

        public init(name: String, version: Int) {
            self.name = name
            self.version = version
        }
    }

    /// One arm of an A/B test with its whole visible content.
    public struct VariantJSON: Codable, Sendable, Equatable {
        public var name: String
        public var weight: Int
        public var message: String
        public var title: String?
        public var sound: String?
        public var badge: Badge?
        public var category: String?
        public var threadId: String?
        public var data: [String: String]
        public var localizations: [String: Localization]
        public var actions: [NotificationAction]?

        public init(
            name: String, weight: Int, message: String, title: String? = nil, sound: String? = nil, badge: Badge? = nil,
            category: String? = nil, threadId: String? = nil, data: [String: String] = [:], localizations: [String: Localization] = [:],
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
        id: Int64, message: String, richType: RichType, audience: String, state: NotificationState, createdBy: String,
        createdAt: String, deliverAt: String, expiresAt: String? = nil, deletedAt: String? = nil, pushStyle: PushStyle,
        imageId: Int64? = nil, url: String? = nil, payloadUrl: String, title: String? = nil, sound: String? = nil,
        badge: Badge? = nil, category: String, threadId: String? = nil, data: [String: String] = [:],
        localizations: [String: Localization] = [:], language: String? = nil, template: TemplateJSON? = nil,
        deliverAtLocal: String? = nil, transactional: Bool, variants: [VariantJSON]? = nil, fallback: FallbackJSON? = nil,
        deliveryRate: Int? = nil, actions: [NotificationAction]? = nil, interruptionLevel: InterruptionLevel? = nil,
        relevanceScore: Double? = nil, channel: String? = nil
    ) {
        self.actions = actions
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.channel = channel
        self.fallback = fallback
        self.deliveryRate = deliveryRate
        self.id = id
        self.message = message
        self.richType = richType
        self.audience = audience
        self.state = state
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.deliverAt = deliverAt
        self.expiresAt = expiresAt
        self.deletedAt = deletedAt
        self.pushStyle = pushStyle
        self.imageId = imageId
        self.url = url
        self.payloadUrl = payloadUrl
        self.title = title
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.data = data
        self.localizations = localizations
        self.language = language
        self.template = template
        self.deliverAtLocal = deliverAtLocal
        self.transactional = transactional
        self.variants = variants
    }

    enum CodingKeys: String, CodingKey {
        case id, message, richType, audience, state, createdBy, createdAt, deliverAt, expiresAt, deletedAt, pushStyle, imageId, url,
            payloadUrl, title, sound, badge, category, threadId, data, localizations, language, template, deliverAtLocal,
            transactional, variants, fallback, deliveryRate, actions, interruptionLevel, relevanceScore, channel
    }

    // The synthesized decoder reads a null `expiresAt` as nil; only the encoder differs, to write that null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(message, forKey: .message)
        try container.encode(richType, forKey: .richType)
        try container.encode(audience, forKey: .audience)
        try container.encode(state, forKey: .state)
        try container.encode(createdBy, forKey: .createdBy)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(deliverAt, forKey: .deliverAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(deletedAt, forKey: .deletedAt)
        try container.encode(pushStyle, forKey: .pushStyle)
        try container.encodeIfPresent(imageId, forKey: .imageId)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(payloadUrl, forKey: .payloadUrl)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(sound, forKey: .sound)
        try container.encodeIfPresent(badge, forKey: .badge)
        try container.encode(category, forKey: .category)
        try container.encodeIfPresent(threadId, forKey: .threadId)
        try container.encode(data, forKey: .data)
        try container.encode(localizations, forKey: .localizations)
        try container.encodeIfPresent(language, forKey: .language)
        try container.encodeIfPresent(template, forKey: .template)
        try container.encodeIfPresent(deliverAtLocal, forKey: .deliverAtLocal)
        try container.encode(transactional, forKey: .transactional)
        try container.encodeIfPresent(variants, forKey: .variants)
        try container.encodeIfPresent(fallback, forKey: .fallback)
        try container.encodeIfPresent(deliveryRate, forKey: .deliveryRate)
        try container.encodeIfPresent(actions, forKey: .actions)
        try container.encodeIfPresent(interruptionLevel, forKey: .interruptionLevel)
        try container.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try container.encodeIfPresent(channel, forKey: .channel)
    }
}
