import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import RichPushCore
import RichPushStore

/// The JSON shapes of the API, as `Public/openapi.yaml` describes them. Times are RFC 3339 strings in UTC; ids of
/// resources are numbers.
struct UserJSON: ResponseEncodable {
    var username: String
    var role: Role
}

struct ImageJSON: ResponseEncodable {
    var id: Int64
    var sha256: String
    var contentType: String
    var width: Int
    var height: Int
    var bytes: Int

    init(_ image: ImageRecord) {
        id = image.id
        sha256 = image.sha256
        contentType = image.contentType
        width = image.width
        height = image.height
        bytes = image.byteCount
    }
}

struct NotificationJSON: ResponseEncodable {
    var id: Int64
    var message: String
    var richType: RichType
    var audience: String
    var state: NotificationState
    var createdBy: String
    var createdAt: String
    var deliverAt: String
    var expiresAt: String?
    var deletedAt: String?
    var pushStyle: PushStyle
    var imageId: Int64?
    var url: String?
    var payloadUrl: String
    var title: String?
    var sound: String?
    var badge: Badge?
    var category: String
    var threadId: String?
    var data: [String: String]
    var localizations: [String: Localization]
    /// The localization the reader's `Accept-Language` picked for `message`, `title` and `url`.
    var language: String?
    var template: TemplateJSON?
    var deliverAtLocal: String?
    /// Neither counted toward the frequency cap nor held in quiet hours.
    var transactional: Bool
    var variants: [VariantJSON]?

    struct TemplateJSON: Encodable {
        var name: String
        var version: Int
    }

    /// One arm of an A/B test with its whole visible content.
    struct VariantJSON: Encodable {
        var name: String
        var weight: Int
        var message: String
        var title: String?
        var sound: String?
        var badge: Badge?
        var category: String?
        var threadId: String?
        var data: [String: String]
        var localizations: [String: Localization]

        init(_ variant: Variant) {
            name = variant.name
            weight = variant.weight
            message = variant.message
            title = variant.content.title
            sound = variant.content.sound
            badge = variant.content.badge
            category = variant.content.category
            threadId = variant.content.threadId
            data = variant.content.data
            localizations = variant.content.localizations
        }
    }

    /// `record` as a reader whose `Accept-Language` picked `localization` sees it.
    init(
        _ record: NotificationRecord, state: NotificationState, payloadURL: String,
        localization: (tag: String, localization: Localization)? = nil
    ) {
        id = record.id
        message = localization?.localization.message ?? record.message
        richType = record.richType
        audience = record.audience
        self.state = state
        createdBy = record.createdBy
        createdAt = Timestamp.format(record.createdAt)
        deliverAt = Timestamp.format(record.deliverAt)
        expiresAt = record.expiresAt.map(Timestamp.format)
        deletedAt = record.deletedAt.map(Timestamp.format)
        pushStyle = record.pushStyle
        payloadUrl = payloadURL
        switch record.payload(in: localization?.localization) {
        case .image(let imageId): self.imageId = imageId
        case .url(let url): self.url = url
        case .text: break
        }
        let content = record.content
        title = localization?.localization.title ?? content.title
        sound = content.sound
        badge = content.badge
        category = content.category ?? PushContent.defaultCategory
        threadId = content.threadId
        data = content.data
        localizations = content.localizations
        language = localization?.tag
        template = record.template.map { TemplateJSON(name: $0.name, version: $0.version) }
        deliverAtLocal = record.deliverAtLocal?.description
        transactional = record.purpose == .transactional
        variants = record.variants.isEmpty ? nil : record.variants.map(VariantJSON.init)
    }

    enum CodingKeys: String, CodingKey {
        case id, message, richType, audience, state, createdBy, createdAt, deliverAt, expiresAt, deletedAt, pushStyle, imageId, url,
            payloadUrl, title, sound, badge, category, threadId, data, localizations, language, template, deliverAtLocal,
            transactional, variants
    }

    /// `expiresAt` is always present (null when unset), as `Public/openapi.yaml` lists it.
    func encode(to encoder: any Encoder) throws {
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
    }
}

/// A page of a list: `next` is the cursor of the following page (`before` or `after`), null on the last.
struct PageJSON<Item: Encodable>: ResponseEncodable {
    var items: [Item]
    var next: Int64?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case items, next }
}

struct StatusJSON: ResponseEncodable {
    struct ErrorJSON: Encodable {
        var installationId: String
        var platform: Platform
        var code: String
        var message: String
        var at: String?
    }

    var id: Int64
    var state: NotificationState
    var targeted: Int
    var sent: Int
    var failed: Int
    var pending: Int
    var expired: Int
    var canceled: Int
    var capped: Int
    var fetched: Int
    var displayed: Int
    var opened: Int
    var dismissed: Int
    var errors: [ErrorJSON]
    /// When the next deliveries fall due, while some are still to come.
    var nextDueAt: String?
    /// Each A/B variant's funnel.
    var variants: [VariantFunnelJSON]?
    /// The state and recall pushes to recipients' other devices, by outcome: beside the funnel, not part of it.
    var statePushes: StatePushesJSON

    struct StatePushesJSON: Encodable {
        var pending: Int
        var sent: Int
        var failed: Int
    }

    struct VariantFunnelJSON: Encodable {
        var name: String
        var targeted: Int
        var sent: Int
        var fetched: Int
        var displayed: Int
        var opened: Int
        var dismissed: Int
    }

    init(
        id: Int64, state: NotificationState, counts: NotificationCounts, nextDueAt: Date? = nil, variants: [VariantFunnel] = [],
        statePushes: [String: Int] = [:]
    ) {
        self.statePushes = StatePushesJSON(pending: statePushes["pending"] ?? 0, sent: statePushes["sent"] ?? 0, failed: statePushes["failed"] ?? 0)
        self.variants =
            variants.isEmpty
            ? nil
            : variants.map {
                VariantFunnelJSON(
                    name: $0.name, targeted: $0.targeted, sent: $0.sent, fetched: $0.fetched, displayed: $0.displayed, opened: $0.opened,
                    dismissed: $0.dismissed)
            }
        self.nextDueAt = nextDueAt.map(Timestamp.format)
        self.id = id
        self.state = state
        targeted = counts.tally.targeted
        sent = counts.tally.sent
        failed = counts.tally.failed
        pending = counts.tally.pending
        expired = counts.tally.expired
        canceled = counts.tally.canceled
        capped = counts.tally.capped
        fetched = counts.fetched
        displayed = counts.displayed
        opened = counts.opened
        dismissed = counts.dismissed
        errors = counts.errors.map {
            ErrorJSON(installationId: $0.installationId, platform: $0.platform, code: $0.code, message: $0.message, at: $0.at.map(Timestamp.format))
        }
    }
}

struct InstallationJSON: ResponseEncodable {
    var installationId: String
    var owner: String
    var platform: Platform
    var pushChannel: String
    var tags: [String]
    var appVersion: String?
    var applicationName: String?
    var sdkVersion: String?
    var timeZone: String?
    var language: String?
    var createdAt: String
    var updatedAt: String
    var deadAt: String?
    var deadReason: String?

    init(_ record: InstallationRecord) {
        language = record.language
        installationId = record.id
        owner = record.owner
        platform = record.platform
        pushChannel = record.pushChannel
        tags = record.allTags.sorted()
        appVersion = record.appVersion
        applicationName = record.applicationName
        sdkVersion = record.sdkVersion
        timeZone = record.timeZone
        createdAt = Timestamp.format(record.createdAt)
        updatedAt = Timestamp.format(record.updatedAt)
        deadAt = record.deadAt.map(Timestamp.format)
        deadReason = record.deadReason
    }
}

struct FeedItemJSON: Encodable {
    var id: Int64
    var message: String
    var richTitle: String?
    var richType: RichType
    var data: [String: String]?
    var readState: ReadState
    var userActionState: UserActionState
    var createdAt: String

    /// `item` in the language a reader's `Accept-Language` picks.
    init(_ item: FeedItem, acceptLanguage: String?) {
        let localization = item.content.localization(forAcceptLanguage: acceptLanguage)?.localization
        id = item.id
        message = localization?.message ?? item.message
        richTitle = localization?.title ?? item.content.title
        data = item.content.data.isEmpty ? nil : item.content.data
        richType = item.richType
        readState = item.readState
        userActionState = item.userActionState
        createdAt = Timestamp.format(item.createdAt)
    }
}

struct FeedJSON: ResponseEncodable {
    var items: [FeedItemJSON]
    /// A string, so clients treat it as opaque.
    var cursor: String
}

extension ResponseEncodable {
    /// Encodes with sorted keys and the JSON content type.
    func jsonResponse(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let buffer = try JSONEncoder.compact.encodeAsByteBuffer(self, allocator: ByteBufferAllocator())
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }
}
