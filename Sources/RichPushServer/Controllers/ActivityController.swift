import Foundation
import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// Live Activities: devices register their tokens (`PUT /api/installations/{id}/activities/push-to-start` and
/// `…/activities/{activityId}`), marketers start, update and end activities (`/api/activities`) and see each device's
/// outcome (`…/deliveries`).
struct ActivityController {
    let activities: any ActivityRepository
    let installations: any InstallationRepository
    let doorbell: Doorbell
    let clock: any WallClock

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.put("installations/:installationId/activities/push-to-start", use: registerPushToStart)
        group.put("installations/:installationId/activities/:activityId", use: registerUpdateToken)
        group.post("activities", use: start)
        group.get("activities/:id", use: get)
        group.patch("activities/:id", use: update)
        group.delete("activities/:id", use: end)
        group.get("activities/:id/deliveries", use: deliveries)
    }

    struct TokenRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "activity"
        var token: String
    }

    struct StartRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "activity"
        var audience: String
        var attributesType: String
        var attributes: JSONValue
        var contentState: JSONValue
        var alert: ActivityAlert?
        var staleDate: String?
        var relevanceScore: Double?
    }

    struct UpdateRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "activity"
        var contentState: JSONValue
        var alert: ActivityAlert?
        var staleDate: String?
    }

    /// The most bytes of attributes and content state: with the rest, an APNs body holds 4096.
    static let maximumStateBytes = 3072

    @Sendable func registerPushToStart(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let installationId = try await ownInstallation(context)
        let body = try await request.decode(as: TokenRequest.self, context: context)
        try await activities.setPushToStartToken(try Self.token(body.token), of: installationId, now: clock.now)
        return Response(status: .noContent)
    }

    @Sendable func registerUpdateToken(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let installationId = try await ownInstallation(context)
        let activityId = try context.id("activityId")
        let body = try await request.decode(as: TokenRequest.self, context: context)
        guard try await activities.setUpdateToken(try Self.token(body.token), of: installationId, activity: activityId, now: clock.now) else {
            throw Self.notFound(activityId)
        }
        // A state the device missed while it had no token goes now.
        doorbell.ring()
        return Response(status: .noContent)
    }

    @Sendable func start(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "start Live Activities")
        let body = try await request.decode(as: StartRequest.self, context: context)
        let audience: TagExpression
        do {
            audience = try TagExpression(parsing: body.audience)
        } catch {
            throw APIError.badRequest("audience.invalid", "The audience is not a valid tag expression: \(error).")
        }
        guard (1...64).contains(body.attributesType.utf8.count), body.attributesType.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError.unprocessable(
                "activity.invalidAttributesType", "attributesType is the app's ActivityAttributes type name, 1 to 64 characters.")
        }
        let now = clock.now
        let draft = ActivityRecord(
            id: 0, audience: audience.description, attributesType: body.attributesType,
            attributes: try Self.objectText(body.attributes, field: "attributes"),
            contentState: try Self.objectText(body.contentState, field: "contentState"), alert: try Self.checked(body.alert),
            staleDate: try body.staleDate.map { try Self.time($0, field: "staleDate") },
            relevanceScore: try body.relevanceScore.map(Self.relevance), createdBy: caller.username, createdAt: now, updatedAt: now)
        try Self.checkSize(draft)
        let started = try await activities.start(
            draft, audience: audience, audit: { caller.audit(.activityStarted, target: String($0), details: "to \(audience)") }, now: now)
        doorbell.ring()
        return EditedResponse(
            status: .created, headers: [.location: "/api/activities/\(started.id)"], response: try ActivityJSON(started))
    }

    @Sendable func get(_ request: Request, context: RichPushRequestContext) async throws -> ActivityJSON {
        try context.requireIdentity().require(.marketer, to: "read Live Activities")
        let id = try context.id()
        guard let activity = try await activities.activity(id: id) else { throw Self.notFound(id) }
        return try ActivityJSON(activity)
    }

    @Sendable func update(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "update Live Activities")
        let id = try context.id()
        let body = try await request.decode(as: UpdateRequest.self, context: context)
        let contentState = try Self.objectText(body.contentState, field: "contentState")
        let alert = try Self.checked(body.alert)
        let staleDate = try body.staleDate.map { try Self.time($0, field: "staleDate") }
        if var next = try await activities.activity(id: id) {
            next.contentState = contentState
            next.alert = alert
            next.staleDate = staleDate ?? next.staleDate
            try Self.checkSize(next)
        }
        guard
            let updated = try await activities.update(
                id: id, contentState: contentState, alert: alert, staleDate: staleDate, audit: caller.audit(.activityUpdated, target: String(id)),
                now: clock.now)
        else { throw try await missingOrEnded(id) }
        doorbell.ring()
        return EditedResponse(status: .accepted, response: try ActivityJSON(updated))
    }

    @Sendable func end(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "end Live Activities")
        let id = try context.id()
        let dismissAt = try request.uri.queryParameters.get("dismissAt").map { try Self.time($0, field: "dismissAt") }
        guard
            let ended = try await activities.end(
                id: id, dismissalDate: dismissAt, audit: caller.audit(.activityEnded, target: String(id)), now: clock.now)
        else { throw try await missingOrEnded(id) }
        doorbell.ring()
        return EditedResponse(status: .accepted, response: try ActivityJSON(ended))
    }

    @Sendable func deliveries(_ request: Request, context: RichPushRequestContext) async throws -> PageJSON<ActivityDeliveryJSON, String> {
        try context.requireIdentity().require(.marketer, to: "read Live Activities")
        let id = try context.id()
        guard try await activities.activity(id: id) != nil else { throw Self.notFound(id) }
        let limit = Int(try request.uri.integer("limit", in: 1...1000) ?? 100)
        let after = request.uri.queryParameters.get("after").map { String($0) }
        let page = try await activities.deliveries(of: id, after: after, limit: limit + 1)
        let items: [ActivityDeliveryJSON] = page.prefix(limit).map { result in
            ActivityDeliveryJSON(
                installationId: result.installationId, owner: result.owner, event: result.event, state: result.state, reason: result.reason,
                attempts: result.attempts, sentAt: result.sentAt.map(Timestamp.format))
        }
        return PageJSON(items: Array(items), next: page.count > limit ? items.last?.installationId : nil)
    }

    /// The path's installation, if it is the caller's APNs installation.
    private func ownInstallation(_ context: RichPushRequestContext) async throws -> String {
        let caller = try context.requireIdentity()
        let id = try InstallationRequest.validId(context.parameters.require("installationId"))
        guard let installation = try await installations.installation(id: id), installation.owner == caller.username else {
            throw APIError.notFound("installation.notFound", "You have no installation \(id).")
        }
        guard installation.platform == .apns else {
            throw APIError.unprocessable(
                "activity.notAPNs", "Live Activities are for apns installations; \(id) is \(installation.platform.rawValue).")
        }
        return id
    }

    private func missingOrEnded(_ id: Int64) async throws -> APIError {
        guard try await activities.activity(id: id) != nil else { return Self.notFound(id) }
        return APIError(.conflict, code: "activity.ended", message: "Live Activity \(id) has ended.")
    }

    private static func notFound(_ id: Int64) -> APIError {
        APIError.notFound("activity.notFound", "There is no Live Activity \(id).")
    }

    /// An APNs activity token: hexadecimal, as device tokens are.
    private static func token(_ token: String) throws -> String {
        guard Platform.apns.accepts(pushChannel: token) else {
            throw APIError.unprocessable("activity.invalidToken", "token is the hexadecimal APNs token the app got from ActivityKit.")
        }
        return token
    }

    /// A JSON object as compact text with sorted keys, within the size an APNs body leaves it.
    private static func objectText(_ value: JSONValue, field: String) throws -> String {
        guard case .object = value else {
            throw APIError.unprocessable("activity.invalid\(field.prefix(1).uppercased())\(field.dropFirst())", "\(field) must be a JSON object.")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        guard text.utf8.count <= maximumStateBytes else {
            throw APIError.unprocessable("activity.tooLarge", "\(field) must be at most \(maximumStateBytes) bytes of JSON.")
        }
        return text
    }

    /// Refuses an activity whose push APNs would not take: the start, which carries the attributes too and which a
    /// device not sent it yet gets with the newest state, is the largest.
    private static func checkSize(_ activity: ActivityRecord) throws {
        let size = activity.apnsPayload(for: .start).count
        guard size <= SilentPush.apnsPayloadLimit else {
            throw APIError.unprocessable(
                "activity.tooLarge", "The activity's push is \(size) bytes for APNs, which accepts \(SilentPush.apnsPayloadLimit).")
        }
    }

    private static func checked(_ alert: ActivityAlert?) throws -> ActivityAlert? {
        guard let alert else { return nil }
        guard !alert.body.isEmpty, alert.body.count <= 1000, (alert.title?.count ?? 1) <= 200, alert.title?.isEmpty != true else {
            throw APIError.unprocessable("activity.invalidAlert", "alert has a body of 1 to 1000 characters and a title of at most 200.")
        }
        return alert
    }

    private static func relevance(_ score: Double) throws -> Double {
        guard (0...1).contains(score) else { throw APIError.unprocessable("activity.invalidRelevanceScore", "relevanceScore is from 0 to 1.") }
        return score
    }

    private static func time(_ text: String, field: String) throws -> Date {
        guard let date = Timestamp.parse(text) else {
            throw APIError.unprocessable("activity.invalidTime", "\(field) must be an RFC 3339 time with a zone, such as 2026-12-01T09:00:00Z.")
        }
        return date
    }
}

extension ActivityJSON {
    init(_ record: ActivityRecord) throws {
        let decoder = JSONDecoder()
        self.init(
            id: record.id, audience: record.audience, attributesType: record.attributesType,
            attributes: try decoder.decode(JSONValue.self, from: Data(record.attributes.utf8)),
            contentState: try decoder.decode(JSONValue.self, from: Data(record.contentState.utf8)), state: record.endedAt == nil ? "active" : "ended",
            createdBy: record.createdBy, createdAt: Timestamp.format(record.createdAt), updatedAt: Timestamp.format(record.updatedAt),
            alert: record.alert, staleDate: record.staleDate.map(Timestamp.format), relevanceScore: record.relevanceScore,
            endedAt: record.endedAt.map(Timestamp.format), dismissAt: record.dismissalDate.map(Timestamp.format))
    }
}
