#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One event of a user's direct stream (`GET /api/me/stream`), with the cursor that follows it.
public struct StreamEvent: Sendable, Equatable {
    /// The cursor of this event: usable as `Last-Event-ID` or `since` to resume after it.
    public var cursor: Int64
    public var body: Body

    public init(cursor: Int64, body: Body) {
        self.cursor = cursor
        self.body = body
    }

    public enum Body: Sendable, Equatable {
        /// A new rich notification: the direct channel's push, with the alert's title, the sender's data, the buttons
        /// (as a device is told of them) and how loudly it may interrupt.
        case rich(
            richId: Int64, richType: RichType, richMessage: String, richTitle: String? = nil, data: [String: String] = [:],
            actions: [DeviceAction] = [], interruptionLevel: InterruptionLevel? = nil)
        /// The user's read or action state of a notification changed (on any device).
        case state(richId: Int64, readState: ReadState, userActionState: UserActionState)
        /// The notification was recalled: remove it.
        case deleted(richId: Int64)
    }

    /// The SSE `event:` name.
    public var name: String {
        switch body {
        case .rich: "rich"
        case .state: "state"
        case .deleted: "deleted"
        }
    }

    /// The JSON text of the SSE `data:` line; ids travel as strings, as the tutorial's client expects.
    public var data: String {
        var fields = Fields(richId: "")
        switch body {
        case .rich(let richId, let richType, let richMessage, let richTitle, let data, let actions, let interruptionLevel):
            fields = Fields(
                richId: String(richId), richType: richType.rawValue, richMessage: richMessage, richTitle: richTitle,
                data: data.isEmpty ? nil : data, actions: actions.isEmpty ? nil : actions, interruptionLevel: interruptionLevel?.rawValue)
        case .state(let richId, let readState, let userActionState):
            fields = Fields(richId: String(richId), readState: readState.rawValue, userActionState: userActionState.rawValue)
        case .deleted(let richId):
            fields = Fields(richId: String(richId))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(fields), as: UTF8.self)
    }

    /// The event framed for the wire. JSON never holds a raw newline, so one `data:` line suffices.
    public var serverSentEvent: String {
        "id: \(cursor)\nevent: \(name)\ndata: \(data)\n\n"
    }

    /// Reads a typed event back from what an SSE parser produced; `nil` for unknown names or malformed data.
    public init?(_ event: ServerSentEvent) {
        guard let id = event.id, let cursor = Int64(id),
            let object = try? JSONDecoder().decode(Fields.self, from: Data(event.data.utf8)), let richId = Int64(object.richId)
        else { return nil }
        switch event.event {
        case "rich":
            guard let type = object.richType.flatMap(RichType.init(rawValue:)), let message = object.richMessage else { return nil }
            self.init(
                cursor: cursor,
                body: .rich(
                    richId: richId, richType: type, richMessage: message, richTitle: object.richTitle, data: object.data ?? [:],
                    actions: object.actions ?? [], interruptionLevel: object.interruptionLevel.flatMap(InterruptionLevel.init(rawValue:))))
        case "state":
            guard let read = object.readState.flatMap(ReadState.init(rawValue:)),
                let action = object.userActionState.flatMap(UserActionState.init(rawValue:))
            else { return nil }
            self.init(cursor: cursor, body: .state(richId: richId, readState: read, userActionState: action))
        case "deleted":
            self.init(cursor: cursor, body: .deleted(richId: richId))
        default:
            return nil
        }
    }

    /// The fields any event's data may carry, strings on the wire but the sender's `data`; unknown ones are ignored.
    private struct Fields: Codable {
        var richId: String
        var richType: String?
        var richMessage: String?
        var richTitle: String?
        var data: [String: String]?
        var actions: [DeviceAction]?
        var interruptionLevel: String?
        var readState: String?
        var userActionState: String?
    }

    /// A comment line: keeps proxies from closing an idle stream and lets clients detect a dead one.
    public static let heartbeat = ": heartbeat\n\n"
}

extension StreamEvent.Body {
    /// The `rich` event that tells a device of `push`.
    public static func announcing(_ push: SilentPush) -> Self {
        .rich(
            richId: push.richId, richType: push.richType, richMessage: push.richMessage, richTitle: push.richTitle, data: push.data,
            actions: push.actions, interruptionLevel: push.interruptionLevel)
    }
}
