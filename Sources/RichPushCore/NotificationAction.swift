/// A button on a notification's alert: it opens a link, has the gateway make a request on the device's behalf, or
/// dismisses the alert.
public struct NotificationAction: Sendable, Hashable, Codable {
    public var id: String
    public var label: String
    public var kind: ActionKind
    /// The https link an `open` action opens, or the address an `http` action's request goes to.
    public var url: String?
    /// An `http` action's method; POST when none is given.
    public var method: ActionMethod?
    /// An `http` action's request body.
    public var body: String?

    public init(id: String, label: String, kind: ActionKind, url: String? = nil, method: ActionMethod? = nil, body: String? = nil) {
        self.id = id
        self.label = label
        self.kind = kind
        self.url = url
        self.method = method
        self.body = body
    }

    /// At most this many buttons: what Android, Web Push and the freedesktop servers all show.
    public static let maximumCount = 3
    public static let maximumLabelLength = 40
    public static let maximumBodyBytes = 1024

    /// Whether `id` may name an action: 1–32 of `A-Z a-z 0-9 _ -`.
    public static func isId(_ id: String) -> Bool {
        (1...32).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }

    /// What a device is told of the action: an `http` action's address, method and body stay on the gateway, which
    /// makes the request itself, so neither they nor any credential in them reach a device.
    public var forDevice: DeviceAction {
        DeviceAction(id: id, label: label, kind: kind, url: kind == .open ? url : nil)
    }

    /// The action as a reader who may not see an `http` action's request sees it.
    public var withoutRequest: NotificationAction {
        kind == .http ? NotificationAction(id: id, label: label, kind: kind) : self
    }

    /// An id made from `label`, as the command line and ntfy's actions make one: lower-case ASCII letters and digits,
    /// the rest `-`, at most 32; numbered (`later-2`) when `taken` has it already.
    public static func id(fromLabel label: String, taken: some Collection<String>) -> String {
        var base = String(label.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }.prefix(32))
        if base.allSatisfy({ $0 == "-" }) { base = "action" }
        var id = base
        var number = 1
        while taken.contains(id) {
            number += 1
            id = String(base.prefix(30)) + "-\(number)"
        }
        return id
    }

    /// `actions` with the labels `localized` gives by id.
    public static func labeled(_ actions: [NotificationAction], by localized: [ActionLabel]?) -> [NotificationAction] {
        guard let localized, !localized.isEmpty else { return actions }
        return actions.map { action in
            var labeled = action
            if let label = localized.first(where: { $0.id == action.id })?.label { labeled.label = label }
            return labeled
        }
    }
}

/// A button as a device is told of it (``NotificationAction/forDevice``): in pushes, stream events and feed items.
public struct DeviceAction: Sendable, Hashable, Codable {
    public var id: String
    public var label: String
    public var kind: ActionKind
    /// An `open` action's link.
    public var url: String?

    public init(id: String, label: String, kind: ActionKind, url: String? = nil) {
        self.id = id
        self.label = label
        self.kind = kind
        self.url = url
    }
}

/// What a notification's button does.
public enum ActionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Opens the action's https link on the device.
    case open
    /// The gateway makes the action's request once, on the device's behalf.
    case http
    /// Dismisses the alert.
    case dismiss
}

/// The methods an `http` action's request may use.
public enum ActionMethod: String, Sendable, Hashable, Codable, CaseIterable {
    case GET
    case POST
}

/// A button's label in one language, by the action's id.
public struct ActionLabel: Sendable, Hashable, Codable {
    public var id: String
    public var label: String

    public init(id: String, label: String) {
        self.id = id
        self.label = label
    }
}

/// How loudly a push may interrupt: Apple's interruption levels, which the other hubs and desktops map to their own.
public enum InterruptionLevel: String, Sendable, Hashable, Codable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical

    /// The freedesktop urgency hint: low for passive, critical (kept on screen) for time-sensitive and critical.
    public var desktopUrgency: UInt8 {
        switch self {
        case .passive: 0
        case .active: 1
        case .timeSensitive, .critical: 2
        }
    }

    /// FCM's `android.priority`: a passive push need not wake a dozing device.
    public var androidPriority: String {
        self == .passive ? "NORMAL" : "HIGH"
    }
}
