#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a Live Activity push tells iOS: start an activity, show a new content state, or end it.
public enum LiveActivityEvent: String, Sendable, Hashable, Codable, CaseIterable {
    case start
    case update
    case end
}

/// The alert a Live Activity push may raise with its new state.
public struct ActivityAlert: Sendable, Hashable, Codable {
    public var title: String?
    public var body: String

    public init(title: String? = nil, body: String) {
        self.title = title
        self.body = body
    }
}

/// A Live Activity as the gateway keeps it: its attributes (fixed at the start), its latest content state, and what
/// its next push says. `attributes` and `contentState` are JSON objects as text, passed to the app unchanged.
public struct ActivityRecord: Sendable, Equatable {
    public var id: Int64
    public var audience: String
    public var attributesType: String
    public var attributes: String
    public var contentState: String
    /// The alert of its latest change, nil when that change raised none.
    public var alert: ActivityAlert?
    /// The alert it started with: a start that goes after an update without an alert still raises it.
    public var startAlert: ActivityAlert?
    public var staleDate: Date?
    public var relevanceScore: Double?
    public var createdBy: String
    public var createdAt: Date
    /// When its content state last changed.
    public var updatedAt: Date
    /// Counts its content states: each update is one more, so a device's push knows whether a newer one came.
    public var version: Int64
    public var endedAt: Date?
    /// When iOS takes an ended activity off the lock screen; nil for iOS's own default.
    public var dismissalDate: Date?

    public init(
        id: Int64, audience: String, attributesType: String, attributes: String, contentState: String, alert: ActivityAlert? = nil,
        startAlert: ActivityAlert? = nil, staleDate: Date? = nil, relevanceScore: Double? = nil, createdBy: String, createdAt: Date,
        updatedAt: Date, version: Int64 = 1, endedAt: Date? = nil, dismissalDate: Date? = nil
    ) {
        self.id = id
        self.audience = audience
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.startAlert = startAlert
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.endedAt = endedAt
        self.dismissalDate = dismissalDate
    }

    /// The APNs body of `event` for this activity at its current state, as Apple documents it for
    /// `apns-push-type: liveactivity`: `timestamp` (seconds), `event`, `content-state`, at the start `attributes-type`
    /// and `attributes` (with `richActivityId`, the id the app reports its update token under), `alert`,
    /// `stale-date`, `relevance-score` and, at the end, `dismissal-date`.
    public func apnsPayload(for event: LiveActivityEvent) -> Data {
        var aps: [String: JSONValue] = [
            "timestamp": .integer(timestamp), "event": .string(event.rawValue),
            "content-state": .object(Self.object(contentState)),
        ]
        if event == .start {
            var attributes = Self.object(attributes)
            attributes["richActivityId"] = .string(String(id))
            aps["attributes-type"] = .string(attributesType)
            aps["attributes"] = .object(attributes)
        }
        if let alert = event == .start ? alert ?? startAlert : alert {
            var fields: [String: JSONValue] = ["body": .string(alert.body)]
            if let title = alert.title { fields["title"] = .string(title) }
            aps["alert"] = .object(fields)
        }
        if let staleDate { aps["stale-date"] = .integer(Int64(staleDate.timeIntervalSince1970)) }
        if let relevanceScore { aps["relevance-score"] = .number(relevanceScore) }
        if event == .end, let dismissalDate { aps["dismissal-date"] = .integer(Int64(dismissalDate.timeIntervalSince1970)) }
        return try! Self.encoder.encode(JSONValue.object(["aps": .object(aps)]))
    }

    /// The push's `timestamp`: iOS shows a state only if its timestamp is later than the one on screen, so each
    /// version is a second later than the one before even when two come within a second.
    public var timestamp: Int64 {
        max(Int64(updatedAt.timeIntervalSince1970), Int64(createdAt.timeIntervalSince1970) + version - 1)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A JSON object's text as its members; the gateway stores only objects.
    static func object(_ text: String) -> [String: JSONValue] {
        guard case .object(let members) = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return [:] }
        return members
    }
}

/// One Live Activity push a dispatcher took: the device, the token its event goes to, and the activity as it is now.
public struct ActivityJob: Sendable, Equatable {
    public var deliveryId: Int64
    public var installationId: String
    public var owner: String
    /// The push-to-start token for a start, the activity's update token for an update or an end.
    public var token: String
    public var event: LiveActivityEvent
    public var attempts: Int
    public var activity: ActivityRecord

    public init(
        deliveryId: Int64, installationId: String, owner: String, token: String, event: LiveActivityEvent, attempts: Int,
        activity: ActivityRecord
    ) {
        self.deliveryId = deliveryId
        self.installationId = installationId
        self.owner = owner
        self.token = token
        self.event = event
        self.attempts = attempts
        self.activity = activity
    }
}

/// What became of one device's pushes of a Live Activity.
public struct ActivityDeliveryResult: Sendable, Equatable {
    public var installationId: String
    public var owner: String
    /// The event its last (or next) push carries.
    public var event: LiveActivityEvent
    /// `pending`, `sent`, `failed`, or `canceled` (ended before its start went).
    public var state: String
    /// Why it failed, or why a pending one waits (`activity.awaitingToken`: the device has not sent its update token).
    public var reason: String?
    public var attempts: Int
    public var sentAt: Date?

    public init(
        installationId: String, owner: String, event: LiveActivityEvent, state: String, reason: String? = nil, attempts: Int,
        sentAt: Date? = nil
    ) {
        self.installationId = installationId
        self.owner = owner
        self.event = event
        self.state = state
        self.reason = reason
        self.attempts = attempts
        self.sentAt = sentAt
    }
}
