public import Foundation
public import RichPushCore

/// What `richpush activity start|update|end` was asked to do, checked before the gateway is contacted: the JSON body
/// of its request and the path it goes to.
public struct ActivityPlan: Sendable {
    public enum Step: Sendable, Equatable {
        case start
        case update(id: Int64)
        case end(id: Int64)
    }

    public var step: Step
    /// The request's JSON body; nil for an end, which has none.
    public var body: Data?
    /// `dismissAt` of an end, as the query gives it.
    public var dismissAt: Date?
    public var json: Bool

    public init(_ step: Step, settings sources: SettingSources) throws(UsageError) {
        typealias S = CommandLineSettings
        let settings = UsageSettings(sources: sources)
        self.step = step
        json = try settings.value(S.json)
        var fields: [String: Any] = [:]
        switch step {
        case .start:
            fields["audience"] = try settings.required(S.to, "the audience, a tag expression such as 'username:alice'")
            fields["attributesType"] = try settings.required(S.attributesType, "the app's ActivityAttributes type")
            fields["attributes"] = try Self.object(settings.value(S.attributes) ?? "{}", flag: "--attributes")
            if let score = try settings.value(S.relevanceScore) { fields["relevanceScore"] = score }
        case .update, .end:
            break
        }
        if case .end = step {
            dismissAt = try settings.value(S.dismissAt)
            return
        }
        fields["contentState"] = try Self.object(
            try settings.required(S.contentState, "the content state, a JSON object such as '{\"status\":\"packed\"}'"), flag: "--content-state")
        if let body = try settings.value(S.alertBody) {
            var alert = ["body": body]
            if let title = try settings.value(S.alertTitle) { alert["title"] = title }
            fields["alert"] = alert
        } else if settings.isGiven(S.alertTitle) {
            throw UsageError("--alert-title goes with --alert-body")
        }
        if let stale = try settings.value(S.staleAt) { fields["staleDate"] = Timestamp.format(stale) }
        body = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
    }

    /// `text` as a JSON object, or a usage error naming `flag`.
    private static func object(_ text: String, flag: String) throws(UsageError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw UsageError("\(flag) must be a JSON object, such as '{\"status\":\"packed\"}'")
        }
        return object
    }
}
