public import Foundation
public import RichPushCore

/// Everything `richpush send` was asked to do, checked before the gateway is contacted.
public struct SendPlan: Sendable {
    /// The rich payload and where it came from.
    public enum Payload: Sendable, Equatable {
        case image(path: String, bytes: Data)
        case url(String)
        case text(String)
    }

    public var payload: Payload
    public var message: String
    public var audience: String
    public var deliverAt: Date?
    public var expiresAt: Date?
    public var pushStyle: PushStyle?
    public var idempotencyKey: String?
    public var wait: Bool
    public var json: Bool
    public var timeout: Duration?
    /// Title, sound, badge, category, thread, data and localizations, as given.
    public var content = PushContent()

    public init(
        payload: Payload, message: String, audience: String, deliverAt: Date? = nil, expiresAt: Date? = nil, pushStyle: PushStyle? = nil,
        idempotencyKey: String? = nil, wait: Bool = false, json: Bool = false, timeout: Duration? = nil
    ) {
        self.payload = payload
        self.message = message
        self.audience = audience
        self.deliverAt = deliverAt
        self.expiresAt = expiresAt
        self.pushStyle = pushStyle
        self.idempotencyKey = idempotencyKey
        self.wait = wait
        self.json = json
        self.timeout = timeout
    }

    /// Reads the plan from the settings; `--expires-in` counts from `--at` when that is later than `now`.
    public init(settings: CommandSettings, now: Date = .now) throws(UsageError) {
        let sources = ["image", "url", "text"].filter { settings.value($0) != nil }
        guard sources.count == 1, let source = sources.first, let value = settings.value(source) else {
            throw UsageError("give exactly one rich payload: --image FILE (PNG, JPEG or WebP), --url URL or --text TEXT")
        }
        switch source {
        case "image":
            guard let bytes = FileManager.default.contents(atPath: value) else { throw UsageError("cannot read the image \(value)") }
            payload = .image(path: value, bytes: bytes)
        case "url":
            payload = .url(value)
        default:
            payload = .text(value)
        }
        message = try settings.required("message", "the text of the alert")
        audience = try settings.required("to", "the audience, a tag expression such as 'username:alice' or 'topic:sale && !lang:fr'")
        if let at = settings.value("at") {
            guard let date = Timestamp.parse(at) else {
                throw UsageError("--at must be an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z, not '\(at)'")
            }
            deliverAt = date
        }
        if let text = settings.value("expires-in") {
            guard let seconds = DurationText.seconds(in: text), seconds > 0 else {
                throw UsageError("--expires-in must be a duration such as 30m, 12h, 1d or 2w, not '\(text)'")
            }
            expiresAt = max(deliverAt ?? now, now).addingTimeInterval(seconds)
        }
        if let style = settings.value("push-style") {
            guard let parsed = PushStyle(rawValue: style) else { throw UsageError("--push-style must be silent or alert, not '\(style)'") }
            pushStyle = parsed
        }
        idempotencyKey = settings.value("idempotency-key")
        content = try Self.content(settings)
        wait = try settings.isOn("wait")
        json = try settings.isOn("json")
        timeout = try settings.timeout()
    }

    /// `--title`, `--sound`, `--badge`, `--category`, `--thread-id`, `--data KEY=VALUE` and `--localized LANG=FILE.json`;
    /// the gateway checks the values themselves.
    private static func content(_ settings: CommandSettings) throws(UsageError) -> PushContent {
        var content = PushContent(
            title: settings.value("title"), sound: settings.value("sound"), category: settings.value("category"),
            threadId: settings.value("thread-id"))
        if let badge = settings.value("badge") {
            if badge == "unread" {
                content.badge = .unread
            } else if let number = Int(badge) {
                content.badge = .number(number)
            } else {
                throw UsageError("--badge must be a number or unread, not '\(badge)'")
            }
        }
        for entry in settings.list("data") {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw UsageError("--data must be KEY=VALUE, not '\(entry)'")
            }
            content.data[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        for entry in settings.list("localized") {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw UsageError("--localized must be LANG=FILE.json, not '\(entry)'")
            }
            let language = String(entry[..<equals])
            let path = String(entry[entry.index(after: equals)...])
            content.localizations[language] = try localization(from: path, language: language)
        }
        return content
    }

    /// A variant from a file such as `{"message": "Soldes", "title": "Soldes d’hiver"}`.
    private static func localization(from path: String, language: String) throws(UsageError) -> Localization {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read \(path) for --localized \(language)") }
        guard let fields = try? JSONDecoder().decode([String: String].self, from: bytes) else {
            throw UsageError("\(path) must be a JSON object of strings: message, title, text, url")
        }
        if let unknown = fields.keys.sorted().first(where: { !["message", "title", "text", "url"].contains($0) }) {
            throw UsageError("\(path) has '\(unknown)', which is not a field of a localization (message, title, text, url)")
        }
        return Localization(message: fields["message"], title: fields["title"], text: fields["text"], url: fields["url"])
    }

    /// The notification to create once the image, if any, is stored as `imageId`.
    func notification(imageId: Int64?) -> NewNotification {
        var notification = NewNotification(
            message: message, richType: payload.richType, imageId: imageId, audience: audience, deliverAt: deliverAt, expiresAt: expiresAt,
            pushStyle: pushStyle, idempotencyKey: idempotencyKey)
        notification.title = content.title
        notification.sound = content.sound
        notification.badge = content.badge
        notification.category = content.category
        notification.threadId = content.threadId
        notification.data = content.data.isEmpty ? nil : content.data
        notification.localizations = content.localizations.isEmpty ? nil : content.localizations
        switch payload {
        case .image: break
        case .url(let url): notification.url = url
        case .text(let text): notification.text = text
        }
        return notification
    }
}

extension SendPlan.Payload {
    var richType: RichType {
        switch self {
        case .image: .img
        case .url: .url
        case .text: .text
        }
    }
}
