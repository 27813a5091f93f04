import Foundation

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
        /// A new rich notification: the direct channel's silent push.
        case rich(richId: Int64, richType: RichType, richMessage: String)
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
        let fields: [String: String]
        switch body {
        case .rich(let richId, let richType, let richMessage):
            fields = SilentPush(richId: richId, richType: richType, richMessage: richMessage).data
        case .state(let richId, let readState, let userActionState):
            fields = ["richId": String(richId), "readState": readState.rawValue, "userActionState": userActionState.rawValue]
        case .deleted(let richId):
            fields = ["richId": String(richId)]
        }
        let json = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: json, as: UTF8.self)
    }

    /// The event framed for the wire. JSON never holds a raw newline, so one `data:` line suffices.
    public var serverSentEvent: String {
        "id: \(cursor)\nevent: \(name)\ndata: \(data)\n\n"
    }

    /// Reads a typed event back from what an SSE parser produced; `nil` for unknown names or malformed data.
    public init?(_ event: ServerSentEvent) {
        guard let id = event.id, let cursor = Int64(id),
            let object = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any],
            let richIdText = object["richId"] as? String, let richId = Int64(richIdText)
        else { return nil }
        switch event.event {
        case "rich":
            guard let type = (object["richType"] as? String).flatMap(RichType.init(rawValue:)),
                let message = object["richMessage"] as? String
            else { return nil }
            self.init(cursor: cursor, body: .rich(richId: richId, richType: type, richMessage: message))
        case "state":
            guard let read = (object["readState"] as? String).flatMap(ReadState.init(rawValue:)),
                let action = (object["userActionState"] as? String).flatMap(UserActionState.init(rawValue:))
            else { return nil }
            self.init(cursor: cursor, body: .state(richId: richId, readState: read, userActionState: action))
        case "deleted":
            self.init(cursor: cursor, body: .deleted(richId: richId))
        default:
            return nil
        }
    }

    /// A comment line: keeps proxies from closing an idle stream and lets clients detect a dead one.
    public static let heartbeat = ": heartbeat\n\n"
}
