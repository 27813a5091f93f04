#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    import Foundation
#endif

/// What a push tells a device: a new rich notification, or a change to one it already has.
public enum PushEvent: Sendable, Hashable {
    case rich
    /// The user's read or action state changed on another device.
    case state(readState: ReadState, userActionState: UserActionState)
    /// The notification was recalled, or the user removed it on another device.
    case deleted
}

/// The push one device receives: the id and type of the rich payload and its message, the alert's visible fields,
/// and the sender's custom data; or, for a state push, the notification's id and what changed.
///
/// The keys are those the classic rich-push tutorial's iOS client reads (`richId`, `richType`, `richMessage`);
/// the id travels as a string.
public struct SilentPush: Sendable, Equatable {
    public var richId: Int64
    public var richType: RichType
    public var richMessage: String
    public var style: PushStyle
    public var richTitle: String?
    /// The alert's sound; a silent push has none.
    public var sound: String?
    public var badge: Int?
    public var category: String
    public var threadId: String?
    /// The sender's custom keys, none of them reserved.
    public var data: [String: String]
    /// The alert's buttons as a device is told of them (``NotificationAction/forDevice``), in its language.
    public var actions: [DeviceAction] = []
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    /// The Android notification channel.
    public var channel: String?
    public var event: PushEvent = .rich

    public init(
        richId: Int64, richType: RichType, richMessage: String, style: PushStyle = .silent, richTitle: String? = nil,
        sound: String? = nil, badge: Int? = nil, category: String = PushContent.defaultCategory, threadId: String? = nil,
        data: [String: String] = [:]
    ) {
        self.richId = richId
        self.richType = richType
        self.richMessage = richMessage
        self.style = style
        self.richTitle = richTitle
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.data = data
    }

    /// APNs allows 4096 bytes of payload.
    public static let apnsPayloadLimit = 4096
    /// FCM allows 4000 bytes of `data`.
    public static let fcmDataLimit = 4000

    /// Keys a sender's data may not use: the push's own, and those APNs and FCM keep for themselves.
    public static let reservedDataKeys: Set<String> = [
        "aps", "richId", "richType", "richMessage", "richTitle", "richEvent", "badge", "from", "notification", "message_type",
        "collapse_key", "richActions", "richInterruptionLevel", "richChannel",
    ]

    /// Whether a sender's data may use `key`.
    public static func isReservedDataKey(_ key: String) -> Bool {
        reservedDataKeys.contains(key) || key.hasPrefix("google.") || key.hasPrefix("gcm.")
    }

    /// The silent push that tells a user's other devices of `event` on notification `richId`.
    public static func stateChange(richId: Int64, event: PushEvent) -> SilentPush {
        var push = SilentPush(richId: richId, richType: .text, richMessage: "")
        push.event = event
        return push
    }

    /// Every key as a string, as FCM's `data` map carries them: the push's own and the sender's. A state push carries
    /// `richEvent`, the id and the two states (none on `deleted`).
    public var keys: [String: String] {
        switch event {
        case .rich: break
        case .state(let readState, let userActionState):
            return [
                "richEvent": "state", "richId": String(richId), "readState": readState.rawValue, "userActionState": userActionState.rawValue,
            ]
        case .deleted:
            return ["richEvent": "deleted", "richId": String(richId)]
        }
        var keys = data
        keys["richId"] = String(richId)
        keys["richType"] = richType.rawValue
        keys["richMessage"] = richMessage
        if let richTitle { keys["richTitle"] = richTitle }
        if let badge { keys["badge"] = String(badge) }
        if let actions = actionsJSON { keys["richActions"] = actions }
        if let interruptionLevel { keys["richInterruptionLevel"] = interruptionLevel.rawValue }
        if let channel { keys["richChannel"] = channel }
        return keys
    }

    /// The buttons as one JSON array in a string, as FCM's and WNS's flat maps of strings carry them; nil for none.
    var actionsJSON: String? {
        actions.isEmpty ? nil : String(decoding: try! Self.encoder.encode(actions), as: UTF8.self)
    }

    /// How many bytes FCM counts of the `data` map: its keys and values.
    public var fcmDataSize: Int {
        keys.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// The APNs JSON body. A silent push is a background push whose `aps` holds only `content-available` and
    /// `sound`, its badge and interruption level top-level strings for the app's own alert; an alert is a
    /// `mutable-content` alert with title, body, category, sound, badge, thread, interruption level and relevance
    /// score. The sender's data are top-level keys; the buttons a top-level `richActions` array, whose ids the app's
    /// registered category names and whose links it opens.
    public func apnsPayload() -> Data {
        if event != .rich { return try! Self.encoder.encode(APNsBody(aps: .contentAvailable, fields: keys)) }
        var fields = data
        fields["richId"] = String(richId)
        fields["richMessage"] = richMessage
        fields["richType"] = richType.rawValue
        if let richTitle { fields["richTitle"] = richTitle }
        let aps: APS
        switch style {
        case .silent:
            if let badge { fields["badge"] = String(badge) }
            if let interruptionLevel { fields["richInterruptionLevel"] = interruptionLevel.rawValue }
            aps = .silent
        case .alert:
            aps = .alert(
                AlertAPS(
                    alert: .init(title: richTitle, body: richMessage), category: category, sound: sound, badge: badge, threadId: threadId,
                    interruptionLevel: interruptionLevel?.rawValue, relevanceScore: relevanceScore))
        }
        // Sorted keys make the bytes deterministic, so a resend after a crash is byte-identical.
        return try! Self.encoder.encode(APNsBody(aps: aps, fields: fields, actions: actions.isEmpty ? nil : actions))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct APNsBody: Encodable {
        var aps: APS
        var fields: [String: String]
        var actions: [DeviceAction]? = nil

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(aps, forKey: AnyKey("aps"))
            for (key, value) in fields { try container.encode(value, forKey: AnyKey(key)) }
            try container.encodeIfPresent(actions, forKey: AnyKey("richActions"))
        }
    }

    private enum APS: Encodable {
        case silent
        /// `content-available` alone: a state push wakes the app and plays nothing.
        case contentAvailable
        case alert(AlertAPS)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .silent: try SilentAPS().encode(to: encoder)
            case .contentAvailable: try ["content-available": 1].encode(to: encoder)
            case .alert(let alert): try alert.encode(to: encoder)
            }
        }
    }

    private struct SilentAPS: Encodable {
        let contentAvailable = 1
        let sound = ""

        enum CodingKeys: String, CodingKey {
            case contentAvailable = "content-available"
            case sound
        }
    }

    private struct AlertAPS: Encodable {
        struct Alert: Encodable {
            var title: String?
            var body: String
        }
        var alert: Alert
        let mutableContent = 1
        var category: String
        var sound: String?
        var badge: Int?
        var threadId: String?
        var interruptionLevel: String?
        var relevanceScore: Double?

        enum CodingKeys: String, CodingKey {
            case alert
            case mutableContent = "mutable-content"
            case category
            case sound
            case badge
            case threadId = "thread-id"
            case interruptionLevel = "interruption-level"
            case relevanceScore = "relevance-score"
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension SilentPush {
    /// The push of one device: `localization` (its language's variant, see
    /// ``PushContent/localization(forInstallationLanguage:)``) over the default fields, and for an `unread` badge its
    /// owner's number of unread notifications.
    public init(
        richId: Int64, richType: RichType, message: String, style: PushStyle, content: PushContent, localization: Localization?,
        unreadCount: Int?
    ) {
        let badge: Int? =
            switch content.badge {
            case .number(let number): number
            case .unread: unreadCount ?? 0
            case nil: nil
            }
        self.init(
            richId: richId, richType: richType, richMessage: localization?.message ?? message, style: style,
            richTitle: localization?.title ?? content.title, sound: style == .alert ? content.sound : nil, badge: badge,
            category: content.category ?? PushContent.defaultCategory, threadId: content.threadId, data: content.data)
        actions = content.deviceActions(in: localization)
        interruptionLevel = content.interruptionLevel
        relevanceScore = content.relevanceScore
        channel = content.channel
    }
}
