#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a campaign says and to whom: the fields a new notification and a template share, as a client sends them. In a
/// template, `message`, `title`, `text`, `url`, the data's values and the localizations' fields may hold Mustache
/// placeholders. What is nil is left out, and the template or the gateway decides it.
public struct CampaignJSON: Codable, Sendable, Equatable {
    public var message: String?
    public var richType: RichType?
    public var imageId: Int64?
    public var url: String?
    public var text: String?
    public var audience: String?
    public var pushStyle: PushStyle?
    public var title: String?
    public var sound: String?
    public var badge: Badge?
    public var category: String?
    public var threadId: String?
    public var data: [String: String]?
    public var localizations: [String: Localization]?
    /// How long after delivery it expires (`30m`, `12h`, `1d`, `2w`), when no `expiresAt` is given.
    public var expiresIn: String?
    /// The fetch deadline, after which a device that has not fetched the payload gets one alert.
    public var fallback: FallbackJSON?
    /// Pushes a minute (at least 60): the campaign's dispatch spread evenly at that pace.
    public var deliveryRate: Int?
    /// The alert's buttons, at most three.
    public var actions: [NotificationAction]?
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    /// The Android notification channel.
    public var channel: String?

    public init(
        message: String? = nil, richType: RichType? = nil, imageId: Int64? = nil, url: String? = nil, text: String? = nil,
        audience: String? = nil, pushStyle: PushStyle? = nil, title: String? = nil, sound: String? = nil, badge: Badge? = nil,
        category: String? = nil, threadId: String? = nil, data: [String: String]? = nil, localizations: [String: Localization]? = nil,
        expiresIn: String? = nil, fallback: FallbackJSON? = nil, deliveryRate: Int? = nil, actions: [NotificationAction]? = nil,
        interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil, channel: String? = nil
    ) {
        self.actions = actions
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.channel = channel
        self.fallback = fallback
        self.deliveryRate = deliveryRate
        self.message = message
        self.richType = richType
        self.imageId = imageId
        self.url = url
        self.text = text
        self.audience = audience
        self.pushStyle = pushStyle
        self.title = title
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.data = data
        self.localizations = localizations
        self.expiresIn = expiresIn
    }
}

extension CampaignJSON {
    /// The delivery rates a campaign may ask for, in pushes a minute: at least one a second, and at most what no hub
    /// would take from one gateway anyway.
    public static let deliveryRates = 60...6_000_000
}
