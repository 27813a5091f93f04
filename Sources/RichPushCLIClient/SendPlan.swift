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
    /// The fetch deadline, in seconds (`--fallback-after`).
    public var fallbackAfter: TimeInterval?
    /// Pushes a minute the dispatch is spread at.
    public var deliveryRate: Int?
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

    /// Reads the plan from the settings; `--expires-in` counts from `--at` when that is later than `now`. With
    /// `--template`, the payload, message and audience may come from the template.
    public init(settings sources: SettingSources, now: Date = .now) throws(UsageError) {
        typealias S = CommandLineSettings
        let settings = UsageSettings(sources: sources)
        template = try settings.value(S.template)
        variables = try Self.pairs(settings.value(S.variables), flag: "--var")
        if template == nil, !variables.isEmpty { throw UsageError("--var fills in a template's placeholders; name the template with --template") }
        let given = [S.image, S.url, S.text].filter { settings.isGiven($0) }
        guard given.count == 1 || (given.isEmpty && template != nil) else {
            throw UsageError("give exactly one rich payload: --image FILE (PNG, JPEG or WebP), --url URL or --text TEXT")
        }
        if let path = try settings.value(S.image) {
            guard let bytes = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read the image \(path)") }
            payload = .image(path: path, bytes: bytes)
        } else if let url = try settings.value(S.url) {
            payload = .url(url)
        } else if let text = try settings.value(S.text) {
            payload = .text(text)
        }
        if template == nil {
            message = try settings.required(S.message, "the text of the alert")
            audience = try settings.required(S.to, "the audience, a tag expression such as 'username:alice' or 'topic:sale && !lang:fr'")
        } else {
            message = try settings.value(S.message)
            audience = try settings.value(S.to)
        }
        deliverAt = try settings.value(S.at)
        deliverAtLocal = try settings.value(S.atLocal)
        if deliverAt != nil, deliverAtLocal != nil { throw UsageError("give --at or --at-local, not both") }
        if let lifetime = try settings.value(S.expiresIn) {
            // Each device's delivery time is the gateway's to work out: it counts the lifetime from the last zone.
            if deliverAtLocal != nil {
                expiresIn = DurationText.text(of: lifetime)
            } else {
                expiresAt = max(deliverAt ?? now, now).addingTimeInterval(lifetime.timeInterval)
            }
        }
        fallbackAfter = try settings.value(S.fallbackAfter)
        deliveryRate = try settings.value(S.rate)
        pushStyle = try settings.value(S.pushStyle)
        idempotencyKey = try settings.value(S.idempotencyKey)
        content = try Self.content(settings)
        wait = try settings.value(S.wait)
        json = try settings.value(S.json)
        timeout = try settings.value(S.timeout)
    }

    /// `--title`, `--sound`, `--badge`, `--category`, `--thread-id`, `--data KEY=VALUE`, `--localized LANG=FILE.json`,
    /// `--action`, `--interruption-level` and `--channel`; the gateway checks the values themselves.
    private static func content(_ settings: UsageSettings) throws(UsageError) -> PushContent {
        typealias S = CommandLineSettings
        var content = PushContent(
            title: try settings.value(S.title), sound: try settings.value(S.sound), badge: try settings.value(S.badge),
            category: try settings.value(S.category), threadId: try settings.value(S.threadId),
            interruptionLevel: try settings.value(S.interruptionLevel), channel: try settings.value(S.channel))
        content.data = try pairs(settings.value(S.data), flag: "--data")
        let actions = try settings.value(S.actions)
        if !actions.isEmpty { content.actions = try Self.actions(actions) }
        for entry in try settings.value(S.localized) {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw UsageError("--localized must be LANG=FILE.json, not '\(entry)'")
            }
            let language = String(entry[..<equals])
            let path = String(entry[entry.index(after: equals)...])
            content.localizations[language] = try localization(from: path, language: language)
        }
        return content
    }

    /// The buttons of `--action` entries: `LABEL=https://…` opens the link, `LABEL=POST https://…` (or `GET`) has the
    /// gateway make the request, `LABEL=dismiss` dismisses. Each id is made from its label: lower-case letters and
    /// digits, the rest as `-`, at most 32, numbered when two labels make the same.
    static func actions(_ entries: [String]) throws(UsageError) -> [NotificationAction] {
        var actions: [NotificationAction] = []
        for entry in entries {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw UsageError("--action must be LABEL=https://…, LABEL=POST https://… or LABEL=dismiss, not '\(entry)'")
            }
            let label = String(entry[..<equals])
            let what = entry[entry.index(after: equals)...].split(separator: " ", maxSplits: 1).map(String.init)
            let id = NotificationAction.id(fromLabel: label, taken: actions.map(\.id))
            switch what.count == 2 ? what[0].uppercased() : what.first {
            case "dismiss": actions.append(NotificationAction(id: id, label: label, kind: .dismiss))
            case "GET", "POST":
                actions.append(
                    NotificationAction(id: id, label: label, kind: .http, url: what[1], method: ActionMethod(rawValue: what[0].uppercased())))
            case let url? where what.count == 1: actions.append(NotificationAction(id: id, label: label, kind: .open, url: url))
            default: throw UsageError("--action must be LABEL=https://…, LABEL=POST https://… or LABEL=dismiss, not '\(entry)'")
            }
        }
        return actions
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
        notification.fallback = fallbackAfter.map(FallbackJSON.init(afterSeconds:))
        notification.deliveryRate = deliveryRate
        notification.template = template
        notification.variables = variables.isEmpty ? nil : variables
        notification.title = content.title
        notification.sound = content.sound
        notification.badge = content.badge
        notification.category = content.category
        notification.threadId = content.threadId
        notification.data = content.data.isEmpty ? nil : content.data
        notification.localizations = content.localizations.isEmpty ? nil : content.localizations
        notification.actions = content.actions
        notification.interruptionLevel = content.interruptionLevel
        notification.channel = content.channel
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
