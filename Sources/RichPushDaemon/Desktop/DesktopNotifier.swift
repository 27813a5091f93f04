import CDBus
import RichPushCore

/// Alerts as freedesktop Desktop Notifications (`org.freedesktop.Notifications`) over one long-lived session-bus
/// connection: servers send `ActionInvoked` and `NotificationClosed` only to the connection that called `Notify`.
///
/// It asks the server's capabilities first and uses only what the server has: no `actions`, no buttons;
/// `body-markup`, an escaped body (and a link when `body-hyperlinks` is there too).
final class DesktopNotifier: AlertPresenter {
    static let service = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"
    /// The app name on every alert, and the `.desktop` file (`richpushd.desktop`) that the `desktop-entry` hint names.
    static let appName = "richpush"
    static let desktopEntry = "richpushd"

    private let session: DBusSession
    let capabilities: Set<String>
    /// The server's name and version, for the log: "dunst 1.9.0".
    let serverDescription: String

    /// Connects and asks the notification server what it can do; fails when there is no bus or no server.
    init(environment: [String: String]) throws(DBusFailure) {
        session = try DBusSession.connect(environment: environment)
        let capabilities = try session.call(
            destination: Self.service, path: Self.path, interface: Self.interface, method: "GetCapabilities")
        self.capabilities = Set(capabilities.arguments.first??.strings ?? [])
        let information = try? session.call(
            destination: Self.service, path: Self.path, interface: Self.interface, method: "GetServerInformation")
        let fields = information?.arguments.compactMap { $0?.string } ?? []
        serverDescription = fields.count >= 3 ? "\(fields[0]) \(fields[2])" : "unknown"
        for member in ["ActionInvoked", "NotificationClosed"] {
            session.addMatch("type='signal',interface='\(Self.interface)',path='\(Self.path)',member='\(member)'")
        }
    }

    var descriptor: Int32? { session.descriptor }

    /// Set once a failed call showed that no notification server is left on the bus.
    private var isGone = false

    var isUsable: Bool { session.isConnected && !isGone }

    var unanswered: Int { session.unanswered }

    func abandon() {
        isGone = true
        session.failUnanswered(with: DBusFailure(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "the desktop was given up"))
    }

    /// A failed `Notify` means the desktop is gone only when the server's name has no owner any more (the bus answers
    /// for a server that left with calls unanswered); a server that is there and answered an error refused this alert.
    private func failure(_ failure: DBusFailure) -> AlertFailure {
        if !isGone && (!session.isConnected || !session.nameHasOwner(Self.service)) { isGone = true }
        return isGone ? .desktopGone(failure) : .refused(failure)
    }

    func show(_ alert: Alert, then shown: @escaping (Result<UInt32?, AlertFailure>) -> Void) {
        let actions = Self.actions(for: alert, capabilities: capabilities)
        let body = Self.body(for: alert, capabilities: capabilities)
        session.send(destination: Self.service, path: Self.path, interface: Self.interface, method: "Notify") { message in
            message.append(Self.appName)
            message.append(UInt32(0))
            message.append("")
            message.append(alert.summary)
            message.append(body)
            message.append(actions)
            message.container(rp_dbus_type_array, signature: "{sv}") { hints in
                hints.hint("desktop-entry", signature: "s") { $0.append(Self.desktopEntry) }
                if let urgency = alert.urgency {
                    hints.hint("urgency", signature: "y") { $0.append(urgency) }
                }
                if let file = alert.imageFile {
                    hints.hint("image-path", signature: "s") { $0.append("file://" + file) }
                }
                if let image = alert.image {
                    hints.hint("image-data", signature: "(iiibiiay)") { variant in
                        variant.container(rp_dbus_type_struct, signature: nil) { data in
                            data.append(image.width)
                            data.append(image.height)
                            data.append(image.rowStride)
                            data.append(image.hasAlpha)
                            data.append(image.bitsPerSample)
                            data.append(image.channels)
                            data.append(image.bytes)
                        }
                    }
                }
            }
            message.append(Int32(-1))
        } reply: { [self] result in
            switch result {
            case .success(let reply):
                guard let id = reply.arguments.first??.uint32, id != 0 else {
                    return shown(
                        .failure(.refused(DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Notify returned no notification id")))
                    )
                }
                shown(.success(id))
            case .failure(let error):
                shown(.failure(failure(error)))
            }
        }
    }

    func close(_ alertId: UInt32) {
        session.sendWithoutReply(destination: Self.service, path: Self.path, interface: Self.interface, method: "CloseNotification") {
            $0.append(alertId)
        }
    }

    func interactions() -> [Interaction] {
        session.incomingMessages().compactMap { message in
            let arguments = message.arguments
            if message.isSignal(interface: Self.interface, member: "ActionInvoked"), arguments.count >= 2,
                let id = arguments[0]?.uint32, let key = arguments[1]?.string
            {
                return .action(alertId: id, key: key)
            }
            if message.isSignal(interface: Self.interface, member: "NotificationClosed"), arguments.count >= 2,
                let id = arguments[0]?.uint32, let reason = arguments[1]?.uint32
            {
                return .closed(alertId: id, reason: reason)
            }
            return nil
        }
    }

    /// `default` (a click on the alert), the sender's buttons (keyed ``actionKeyPrefix`` and their id) and "More"
    /// when there is something to open; none without `actions`.
    static func actions(for alert: Alert, capabilities: Set<String>) -> [String] {
        guard capabilities.contains("actions") else { return [] }
        var actions = ["default", "Open"]
        for action in alert.actions { actions += [actionKeyPrefix + action.id, action.label] }
        if alert.openTarget != nil { actions += ["more", "More"] }
        return actions
    }

    /// Keys the sender's buttons apart from the alert's own `default` and `more`.
    static let actionKeyPrefix = "action:"

    /// The id of the sender's button an `ActionInvoked` key names; nil for the alert's own keys.
    static func actionId(inKey key: String) -> String? {
        key.hasPrefix(actionKeyPrefix) ? String(key.dropFirst(actionKeyPrefix.count)) : nil
    }

    /// The message, then the detail line; escaped when the server reads markup, a link when it renders links.
    static func body(for alert: Alert, capabilities: Set<String>) -> String {
        guard capabilities.contains("body") else { return "" }
        let markup = capabilities.contains("body-markup")
        var body = markup ? escape(alert.message) : alert.message
        if let detail = alert.detail {
            if markup, let link = alert.link, capabilities.contains("body-hyperlinks") {
                body += "\n<a href=\"\(escape(link))\">\(escape(detail))</a>"
            } else {
                body += "\n" + (markup ? escape(detail) : detail)
            }
        }
        return body
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
