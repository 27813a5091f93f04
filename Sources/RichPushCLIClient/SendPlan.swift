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

    /// Nil when a template gives it.
    public var payload: Payload?
    /// Nil when a template gives it.
    public var message: String?
    /// Nil when a template gives it.
    public var audience: String?
    public var deliverAt: Date?
    /// A wall-clock time without a zone, reached in each device's own zone (`--at-local`).
    public var deliverAtLocal: LocalTime?
    /// How long after delivery it expires, as given, when the delivery time differs per device.
    public var expiresIn: String?
    /// The template whose fields the ones given here override, and its placeholders' values.
    public var template: String?
    public var variables: [String: String] = [:]
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
    /// Reads the plan from the settings; `--expires-in` counts from `--at` when that is later than `now`. With
    /// `--template`, the payload, message and audience may come from the template.
    public init(settings: CommandSettings, now: Date = .now) throws(UsageError) {
        template = settings.value("template")
        variables = try Self.pairs(settings.list("var"), flag: "--var")
        if template == nil, !variables.isEmpty { throw UsageError("--var fills in a template's placeholders; name the template with --template") }
        let sources = ["image", "url", "text"].filter { settings.value($0) != nil }
        guard sources.count == 1 || (sources.isEmpty && template != nil) else {
            throw UsageError("give exactly one rich payload: --image FILE (PNG, JPEG or WebP), --url URL or --text TEXT")
        }
        if let source = sources.first, let value = settings.value(source) {
            switch source {
            case "image":
                guard let bytes = FileManager.default.contents(atPath: value) else { throw UsageError("cannot read the image \(value)") }
                payload = .image(path: value, bytes: bytes)
            case "url":
                payload = .url(value)
            default:
                payload = .text(value)
            }
        }
        if template == nil {
            message = try settings.required("message", "the text of the alert")
            audience = try settings.required("to", "the audience, a tag expression such as 'username:alice' or 'topic:sale && !lang:fr'")
        } else {
            message = settings.value("message")
            audience = settings.value("to")
        }
        if let at = settings.value("at") {
            guard let date = Timestamp.parse(at) else {
                throw UsageError("--at must be an ISO 8601 time with a zone, such as 2026-12-01T09:00:00Z, not '\(at)'")
            }
            deliverAt = date
        }
        if let local = settings.value("at-local") {
            guard deliverAt == nil else { throw UsageError("give --at or --at-local, not both") }
            guard let time = Timestamp.parseLocal(local) else {
                throw UsageError("--at-local must be a wall-clock time without a zone, such as 2026-12-01T09:00:00, not '\(local)'")
            }
            deliverAtLocal = time
        }
        if let text = settings.value("expires-in") {
            guard let seconds = DurationText.seconds(in: text), seconds > 0 else {
                throw UsageError("--expires-in must be a duration such as 30m, 12h, 1d or 2w, not '\(text)'")
            }
            // Each device's delivery time is the gateway's to work out: it counts the lifetime from the last zone.
            if deliverAtLocal != nil {
                expiresIn = text
            } else {
                expiresAt = max(deliverAt ?? now, now).addingTimeInterval(seconds)
            }
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
        content.data = try pairs(settings.list("data"), flag: "--data")
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

    /// `KEY=VALUE` entries of a repeatable flag.
    private static func pairs(_ entries: [String], flag: String) throws(UsageError) -> [String: String] {
        var pairs: [String: String] = [:]
        for entry in entries {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw UsageError("\(flag) must be KEY=VALUE, not '\(entry)'")
            }
            pairs[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return pairs
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
    func notification(imageId: Int64?) -> NewNotificationJSON {
        var notification = NewNotificationJSON(
            message: message, richType: payload?.richType, imageId: imageId, audience: audience, deliverAt: deliverAt, expiresAt: expiresAt,
            pushStyle: pushStyle, idempotencyKey: idempotencyKey)
        notification.deliverAtLocal = deliverAtLocal?.description
        notification.expiresIn = expiresIn
        notification.template = template
        notification.variables = variables.isEmpty ? nil : variables
        notification.title = content.title
        notification.sound = content.sound
        notification.badge = content.badge
        notification.category = content.category
        notification.threadId = content.threadId
        notification.data = content.data.isEmpty ? nil : content.data
        notification.localizations = content.localizations.isEmpty ? nil : content.localizations
        switch payload {
        case .image, nil: break
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
