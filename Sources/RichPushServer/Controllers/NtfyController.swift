import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NIOCore
import RichPushCore

/// ntfy's publish API, so what already speaks ntfy (Apprise's `ntfy://` and `ntfys://`, scripts that `curl -d` a
/// topic, monitoring hooks) sends richpush notifications unchanged: `POST`/`PUT /ntfy/{topic}` with the message as the
/// body and ntfy's headers, and ntfy's JSON form at `POST /ntfy` and at `POST /`, where Apprise sends it.
///
/// A message becomes a notification to the tag `topic:{topic}` from the caller (a member's reaches only her own
/// devices), a text payload, or a link payload for `Click` or `Attach`; `Title` is its title, `Priority` and `Tags` go
/// into its data as `ntfyPriority` and `ntfyTags`, priorities 1 and 2 make it passive and 5 time-sensitive, and ntfy's
/// `view` and `http` actions become its buttons (``NtfyActions``). `Markdown`, `Icon`, `Delay`, `Email` and the other
/// ntfy features are taken and ignored. The answer is ntfy's message JSON, with the notification's id.
struct NtfyController {
    let notifications: NotificationController

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("ntfy/:topic", use: publishBody)
        group.put("ntfy/:topic", use: publishBody)
        group.post("ntfy", use: publishJSON)
        group.post("/", use: publishJSON)
    }

    /// ntfy's JSON publish form.
    struct Message: Decodable, RequestErrorDomain {
        static let errorDomain = "ntfy"
        var topic: String
        var message: String?
        var title: String?
        var priority: Int?
        var tags: [String]?
        var click: String?
        var attach: String?
        var filename: String?
        var actions: JSONValue?
        var markdown: Bool?
        var icon: String?
        var delay: String?
        var email: String?
        var call: String?
        var cache: String?
        var firebase: String?
    }

    /// The answer ntfy gives a publish.
    struct Published: ResponseEncodable {
        var id: String
        var time: Int64
        var event = "message"
        var topic: String
        var message: String
        var title: String?
        var tags: [String]?
        var priority: Int?
        var click: String?
    }

    @Sendable func publishBody(_ request: Request, context: RichPushRequestContext) async throws -> Published {
        let topic = try context.parameters.require("topic")
        let body = try await request.collectBody(limit: StrictRequestDecoder.maximumBytes)
        let headers = request.headers
        let query = request.uri.queryParameters
        func field(_ names: String...) -> String? {
            for name in names {
                if let value = HTTPField.Name(name).flatMap({ headers[$0] }) { return value }
                if let value = query.get(name.lowercased()) { return String(value) }
            }
            return nil
        }
        var message = Message(topic: topic)
        message.message = String(buffer: body)
        message.title = field("X-Title", "Title", "t")
        message.priority = try field("X-Priority", "Priority", "prio", "p").map(Self.priority)
        message.tags = field("X-Tags", "Tags", "Tag", "ta").map(Self.tags)
        message.click = field("X-Click", "Click")
        message.attach = field("X-Attach", "Attach", "a")
        let actions = try field("X-Actions", "Actions", "Action").map(NtfyActions.fromHeader)
        return try await publish(message, actions: actions, request: request, context: context)
    }

    @Sendable func publishJSON(_ request: Request, context: RichPushRequestContext) async throws -> Published {
        var message = try await request.decode(as: Message.self, context: context)
        // Apprise sends the JSON form and ntfy's headers together.
        if message.priority == nil { message.priority = try request.headers[HTTPField.Name("X-Priority")!].map(Self.priority) }
        if message.tags == nil { message.tags = request.headers[HTTPField.Name("X-Tags")!].map(Self.tags) }
        if message.click == nil { message.click = request.headers[HTTPField.Name("X-Click")!]?.removingPercentEncoding }
        let actions = try message.actions.map(NtfyActions.fromJSON) ?? request.headers[HTTPField.Name("X-Actions")!].map(NtfyActions.fromHeader)
        return try await publish(message, actions: actions, request: request, context: context)
    }

    private func publish(_ message: Message, actions: [NotificationAction]?, request: Request, context: RichPushRequestContext) async throws
        -> Published
    {
        let caller = try context.requireIdentity()
        try notifications.rateLimits.admitSend(by: caller)
        guard (1...64).contains(message.topic.utf8.count),
            message.topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            throw APIError.badRequest("ntfy.invalidTopic", "A topic has 1 to 64 letters, digits, - and _.")
        }
        if let priority = message.priority, !(1...5).contains(priority) { throw Self.invalidPriority }
        let text = message.message.flatMap { $0.isEmpty ? nil : $0 } ?? "triggered"
        let link = message.click ?? message.attach
        var fields = NewNotificationJSON(
            message: text, richType: link == nil ? .text : .url, url: link, text: link == nil ? text : nil,
            audience: caller.role == .member ? Tag.user(caller.username) : "topic:\(message.topic)")
        fields.title = message.title
        fields.actions = actions.flatMap { $0.isEmpty ? nil : $0 }
        fields.interruptionLevel = message.priority.flatMap { Self.interruptionLevel(ofPriority: $0) }
        var data: [String: String] = [:]
        if let priority = message.priority { data["ntfyPriority"] = String(priority) }
        if let tags = message.tags, !tags.isEmpty { data["ntfyTags"] = tags.joined(separator: ",") }
        if !data.isEmpty { fields.data = data }
        let now = notifications.clock.now
        let draft = try await fields.draft(
            by: caller, now: now, template: nil, defaultTimeZone: notifications.defaultTimeZone,
            defaultFallbackAfter: notifications.defaultFallbackAfter
        ) { _ in false }
        let (record, _) = try await notifications.publish(draft, by: caller, now: now, context: context)
        return Published(
            id: String(record.id), time: Int64(now.timeIntervalSince1970), topic: message.topic, message: text, title: message.title,
            tags: message.tags, priority: message.priority, click: message.click)
    }

    /// ntfy's priority: 1 to 5, or its name.
    static func priority(_ text: String) throws -> Int {
        let names = ["min": 1, "low": 2, "default": 3, "high": 4, "max": 5, "urgent": 5]
        guard let priority = Int(text.trimmingCharacters(in: .whitespaces)) ?? names[text.lowercased().trimmingCharacters(in: .whitespaces)]
        else { throw invalidPriority }
        return priority
    }

    /// How loudly ntfy's priority says a push may interrupt: min and low quietly, max and urgent through focus.
    static func interruptionLevel(ofPriority priority: Int) -> InterruptionLevel? {
        switch priority {
        case 1, 2: .passive
        case 5: .timeSensitive
        default: nil
        }
    }

    static let invalidPriority = APIError.badRequest(
        "ntfy.invalidPriority", "A priority is 1 to 5, or min, low, default, high, max or urgent.")

    /// ntfy's comma-separated tags.
    static func tags(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension NtfyController.Message {
    init(topic: String) {
        self.topic = topic
    }
}
