public import Foundation
public import RichPushCore

/// Times are stored as integer milliseconds since 1970 on every engine.
func EpochMilliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
}

func dateFromMilliseconds(_ milliseconds: Int64) -> Date {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000)
}

/// A user as stored, with the bcrypt hash of its password.
public struct UserRecord: Sendable, Equatable {
    public var id: Int64
    public var username: String
    public var passwordHash: String
    public var role: Role
    public var createdAt: Date
}

/// An uploaded image's metadata; the bytes are fetched separately.
public struct ImageRecord: Sendable, Equatable {
    public var id: Int64
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var byteCount: Int
    public var createdBy: String
    public var createdAt: Date

    public init(
        id: Int64, sha256: String, contentType: String, width: Int, height: Int, byteCount: Int, createdBy: String,
        createdAt: Date
    ) {
        self.id = id
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

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

    public init(
        message: String, payload: RichPayload, audience: TagExpression, pushStyle: PushStyle, deliverAt: Date,
        expiresAt: Date?, createdBy: String, idempotencyKey: String?, content: PushContent = PushContent(),
        template: TemplateReference? = nil, localDelivery: LocalDelivery? = nil, purpose: NotificationPurpose = .transactional,
        variants: [Variant] = []
    ) {
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

/// A device registration.
public struct InstallationRecord: Sendable, Equatable {
    public var id: String
    public var owner: String
    public var platform: Platform
    public var pushChannel: String
    /// The tags the device registered; the automatic ones are derived, see ``allTags``.
    public var tags: [String]
    public var appVersion: String?
    public var applicationName: String?
    public var sdkVersion: String?
    public var timeZone: String?
    /// BCP 47: which localization of a notification this device gets.
    public var language: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// Set when a hub reported the device gone, or another user's installation took its hub-issued channel;
    /// cleared when it registers again.
    public var deadAt: Date?
    public var deadReason: String?
    /// The owner's segments (protected tags marketers and admins assign to the user), which every installation of
    /// the user carries; the store fills them in.
    public var segments: [String] = []

    /// The dead reason of an installation whose channel another user's installation registered.
    public static let replacedReason = "installation.replaced"

    /// Whether another user's installation took this one's channel: the device changed hands.
    public var isReplaced: Bool { deadReason == Self.replacedReason }

    public init(
        id: String, owner: String, platform: Platform, pushChannel: String, tags: [String], appVersion: String? = nil,
        applicationName: String? = nil, sdkVersion: String? = nil, timeZone: String? = nil, language: String? = nil, createdAt: Date,
        updatedAt: Date, deadAt: Date? = nil, deadReason: String? = nil, segments: [String] = []
    ) {
        self.segments = segments
        self.language = language
        self.id = id
        self.owner = owner
        self.platform = platform
        self.pushChannel = pushChannel
        self.tags = tags
        self.appVersion = appVersion
        self.applicationName = applicationName
        self.sdkVersion = sdkVersion
        self.timeZone = timeZone
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deadAt = deadAt
        self.deadReason = deadReason
    }

    /// The registered tags plus `username:`, `installation:` and `platform:`, and `language:`, `timezone:` and
    /// `appversion:` from the installation's fields.
    public var allTags: Set<String> {
        Set(tags).union([Tag.user(owner), Tag.installation(id), Tag.platform(platform)])
            .union(Tag.deviceFields(language: language, timeZone: timeZone, appVersion: appVersion)).union(segments)
    }
}

/// A user's view of one notification.
public struct FeedItem: Sendable, Equatable {
    public var id: Int64
    public var message: String
    public var richType: RichType
    /// The title, data and localizations a reader's language picks from.
    public var content: PushContent
    public var readState: ReadState
    public var userActionState: UserActionState
    public var createdAt: Date
    public var seq: Int64
}

/// A failed delivery, as the status endpoint lists it.
public struct DeliveryError: Sendable, Equatable {
    public var installationId: String
    public var platform: Platform
    public var code: String
    public var message: String
    public var at: Date?
}

/// The numbers behind `GET /api/notifications/{id}/status`.
public struct NotificationCounts: Sendable, Equatable {
    public var tally: DeliveryTally
    public var fetched: Int
    public var displayed: Int
    public var opened: Int
    public var dismissed: Int
    public var errors: [DeliveryError]
}

/// A recipient's fetch of a notification's payload.
public struct PayloadFetch: Hashable, Sendable {
    public var notificationId: Int64
    public var username: String

    public init(notificationId: Int64, username: String) {
        self.notificationId = notificationId
        self.username = username
    }
}
