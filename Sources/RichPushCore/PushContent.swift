/// How a notification's badge is set: a number, or each device's own count of unread notifications.
public enum Badge: Sendable, Hashable {
    case number(Int)
    /// Each device gets its owner's number of unread feed items at the moment its push is built.
    case unread

    public static let range = 0...99_999
}

extension Badge: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else if try container.decode(String.self) == "unread" {
            self = .unread
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a badge is a number or \"unread\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .unread: try container.encode("unread")
        }
    }
}

/// One language's variant of a notification's visible fields; what it leaves out comes from the default.
public struct Localization: Sendable, Hashable, Codable {
    public var message: String?
    public var title: String?
    public var text: String?
    public var url: String?
    /// The buttons' labels in this language, by action id.
    public var actions: [ActionLabel]?

    public init(message: String? = nil, title: String? = nil, text: String? = nil, url: String? = nil, actions: [ActionLabel]? = nil) {
        self.message = message
        self.title = title
        self.text = text
        self.url = url
        self.actions = actions
    }
}

/// What a push shows and carries besides its message and rich payload: the alert's title, sound, badge, category and
/// thread, its buttons, how loudly it may interrupt, the sender's custom data, and variants per language.
public struct PushContent: Sendable, Hashable, Codable {
    public var title: String?
    public var sound: String?
    public var badge: Badge?
    public var category: String?
    public var threadId: String?
    public var data: [String: String]
    /// Keyed by BCP 47 tag as the sender wrote it.
    public var localizations: [String: Localization]
    /// The alert's buttons, in order; nil for none (content stored before buttons existed has no key).
    public var actions: [NotificationAction]?
    public var interruptionLevel: InterruptionLevel?
    /// APNs' `relevance-score`, 0 to 1: which of an app's notifications the summary puts first.
    public var relevanceScore: Double?
    /// The Android notification channel an alert goes to.
    public var channel: String?

    public init(
        title: String? = nil, sound: String? = nil, badge: Badge? = nil, category: String? = nil, threadId: String? = nil,
        data: [String: String] = [:], localizations: [String: Localization] = [:], actions: [NotificationAction]? = nil,
        interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil, channel: String? = nil
    ) {
        self.title = title
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.data = data
        self.localizations = localizations
        self.actions = actions
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.channel = channel
    }

    /// The buttons a device whose language picked `localization` shows, as the device is told of them.
    public func deviceActions(in localization: Localization?) -> [DeviceAction] {
        NotificationAction.labeled(actions ?? [], by: localization?.actions).map(\.forDevice)
    }

    /// The category of an alert that names none: the tutorial's client registers `richPush`.
    public static let defaultCategory = "richPush"

    public var isEmpty: Bool { self == PushContent() }

    /// Whether two devices of one notification may get different pushes: a variant per language, or a badge per
    /// user. A hub that sends one push to a whole audience (Notification Hubs' tag sends) cannot carry such one.
    public var variesByDevice: Bool { !localizations.isEmpty || badge == .unread }

    /// The localization an installation whose language is `language` gets: its exact tag, else its primary subtag
    /// (`fr-CA` gets `fr-CA`, else `fr`), compared without regard to case; nil for the default fields.
    public func localization(forInstallationLanguage language: String?) -> (tag: String, localization: Localization)? {
        guard let language, !localizations.isEmpty else { return nil }
        let wanted = LanguageTag.fold(language)
        if let exact = localizations.first(where: { LanguageTag.fold($0.key) == wanted }) { return (exact.key, exact.value) }
        let primary = LanguageTag.primarySubtag(of: wanted)
        guard primary != wanted, let general = localizations.first(where: { LanguageTag.fold($0.key) == primary }) else { return nil }
        return (general.key, general.value)
    }

    /// The localization an `Accept-Language` header picks by RFC 4647's lookup; nil for the default fields.
    public func localization(forAcceptLanguage header: String?) -> (tag: String, localization: Localization)? {
        guard let header, !localizations.isEmpty else { return nil }
        let byFoldedTag = Dictionary(localizations.map { (LanguageTag.fold($0.key), $0.key) }, uniquingKeysWith: { first, _ in first })
        for range in LanguageTag.acceptedRanges(header) {
            var candidate = range
            while !candidate.isEmpty {
                if let tag = byFoldedTag[candidate] { return (tag, localizations[tag]!) }
                candidate = LanguageTag.truncated(candidate)
            }
        }
        return nil
    }
}

/// BCP 47 language tags as the gateway compares them.
public enum LanguageTag {
    /// Whether `tag` is well formed enough to name a language: 1 to 8 letters, then subtags of 1 to 8 letters or
    /// digits, joined by `-`, at most 35 characters in all.
    public static func isValid(_ tag: some StringProtocol) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard tag.utf8.count <= 35, let first = subtags.first, (1...8).contains(first.count),
            first.utf8.allSatisfy(isLetter)
        else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.utf8.allSatisfy { isLetter($0) || isDigit($0) } }
    }

    /// The tag lower-cased, as tags compare.
    public static func fold(_ tag: some StringProtocol) -> String {
        String(tag).lowercased()
    }

    /// `fr` of `fr-ca`.
    public static func primarySubtag(of tag: String) -> String {
        tag.split(separator: "-", maxSplits: 1).first.map(String.init) ?? tag
    }

    /// The ranges of an `Accept-Language` header, most wanted first, folded; `*` and ranges of weight 0 left out.
    static func acceptedRanges(_ header: String) -> [String] {
        var ranges: [(range: String, weight: Double, position: Int)] = []
        for (position, item) in header.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmed() }
            guard let range = parts.first, !range.isEmpty, range != "*" else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0 { ranges.append((fold(range), weight, position)) }
        }
        return ranges.sorted { ($0.weight, -$0.position) > ($1.weight, -$1.position) }.map(\.range)
    }

    /// RFC 4647 lookup's next, shorter range: the last subtag dropped, and a single-letter subtag before it too.
    static func truncated(_ range: String) -> String {
        guard let dash = range.lastIndex(of: "-") else { return "" }
        var shorter = String(range[..<dash])
        if let previous = shorter.lastIndex(of: "-"), shorter.distance(from: previous, to: shorter.endIndex) == 2 {
            shorter = String(shorter[..<previous])
        }
        return shorter
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 97 && (byte | 0x20) <= 122 }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}

extension Substring {
    /// Without the spaces and tabs around it.
    func trimmed() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
