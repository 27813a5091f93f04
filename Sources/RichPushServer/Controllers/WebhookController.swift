import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushHubs
import RichPushStore

/// `POST`/`GET /api/webhooks`, `GET`/`PATCH`/`DELETE /api/webhooks/{id}` and `GET /api/webhooks/{id}/attempts`
/// (admins): where the gateway posts what happens to deliveries and notifications, signed the Standard Webhooks way.
/// A webhook's secret is shown once, in the answer that creates it.
struct WebhookController {
    let webhooks: any WebhookRepository
    /// The outbound rules of the push endpoints: a receiver on the gateway's own machine or network is refused.
    let outboundAddresses: OutboundAddressPolicy
    let senderDoorbell: Doorbell
    let clock: any WallClock

    /// A webhook is an outbound request per batch of events: a few are plenty, a runaway script stops here.
    static let maximumWebhooks = 20

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("webhooks", use: create)
        group.get("webhooks", use: list)
        group.get("webhooks/:id", use: show)
        group.patch("webhooks/:id", use: change)
        group.delete("webhooks/:id", use: delete)
        group.get("webhooks/:id/attempts", use: attempts)
    }

    struct CreateRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "webhook"
        var url: String
        var events: [String]
        var secret: String?
    }

    struct ChangeRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "webhook"
        var enabled: Bool
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try admin(context)
        let body = try await request.decode(as: CreateRequest.self, context: context)
        let url = try receiverURL(body.url)
        let events = try eventTypes(body.events)
        let secret = body.secret ?? WebhookSigner.makeSecret()
        guard WebhookSigner(secret: secret) != nil else {
            throw APIError.unprocessable("webhook.invalidSecret", "A secret is whsec_ and the base64 of 24 to 64 bytes; leave it out to get one.")
        }
        guard try await webhooks.list().count < Self.maximumWebhooks else {
            throw APIError.unprocessable("webhook.limit", "The gateway holds at most \(Self.maximumWebhooks) webhooks; delete one first.")
        }
        let id = "wh_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let record = try await webhooks.create(
            id: id, url: url, events: events, secret: secret, createdBy: caller.username,
            audit: caller.audit(.webhookCreated, target: id, details: "\(url) \(events.map(\.rawValue).joined(separator: ","))"), now: clock.now)
        return EditedResponse(status: .created, headers: [.location: "/api/webhooks/\(id)"], response: WebhookJSON(record, secret: secret))
    }

    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> ListJSON<WebhookJSON> {
        _ = try admin(context)
        return ListJSON(items: try await webhooks.list().map { WebhookJSON($0) })
    }

    @Sendable func show(_ request: Request, context: RichPushRequestContext) async throws -> WebhookJSON {
        _ = try admin(context)
        return WebhookJSON(try await webhook(context))
    }

    /// `{"enabled": true}` sends to a disabled webhook again, its failures forgotten; `false` stops it by hand.
    @Sendable func change(_ request: Request, context: RichPushRequestContext) async throws -> WebhookJSON {
        let caller = try admin(context)
        let body = try await request.decode(as: ChangeRequest.self, context: context)
        let id = try await webhook(context).id
        guard
            let record = try await webhooks.setEnabled(
                id: id, body.enabled, reason: "Disabled by \(caller.username).",
                audit: caller.audit(.webhookChanged, target: id, details: body.enabled ? "enabled" : "disabled"),
                now: clock.now)
        else { throw notFound(id) }
        if body.enabled { senderDoorbell.ring() }
        return WebhookJSON(record)
    }

    @Sendable func delete(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try admin(context)
        let id = try context.parameters.require("id")
        guard try await webhooks.delete(id: id, audit: caller.audit(.webhookDeleted, target: id), now: clock.now) else { throw notFound(id) }
        return Response(status: .noContent)
    }

    /// The latest attempts, newest first: `?limit=` up to 1,000, 50 by default.
    @Sendable func attempts(_ request: Request, context: RichPushRequestContext) async throws -> ListJSON<WebhookAttemptJSON> {
        _ = try admin(context)
        let limit = Int(try request.uri.integer("limit", in: 1...1000) ?? 50)
        let id = try await webhook(context).id
        return ListJSON(items: try await webhooks.attempts(webhookId: id, limit: limit).map(WebhookAttemptJSON.init))
    }

    private func admin(_ context: RichPushRequestContext) throws -> AuthenticatedUser {
        let caller = try context.requireIdentity()
        try caller.require(.admin, to: "manage webhooks")
        return caller
    }

    private func webhook(_ context: RichPushRequestContext) async throws -> WebhookRecord {
        let id = try context.parameters.require("id")
        guard let record = try await webhooks.webhook(id: id) else { throw notFound(id) }
        return record
    }

    private func notFound(_ id: String) -> APIError {
        APIError.notFound("webhook.notFound", "There is no webhook \(id.prefix(64)).")
    }

    /// An absolute `https` or `http` URL with a host and no credentials, whose host is not spelled as a loopback or
    /// private address (a name is judged again at every connection).
    private func receiverURL(_ text: String) throws -> String {
        let invalid = APIError.unprocessable(
            "webhook.invalidUrl", "url is an absolute https or http URL of at most 2,048 characters, without credentials.")
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            ["https", "http"].contains(scheme), let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { throw invalid }
        do throws(OutboundAddressPolicy.Refusal) {
            try outboundAddresses.checkLiteral(host)
        } catch {
            throw APIError.unprocessable("webhook.forbiddenAddress", error.reason)
        }
        return text
    }

    private func eventTypes(_ names: [String]) throws -> [WebhookEventType] {
        let known = WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
        var types: [WebhookEventType] = []
        for name in names {
            guard let type = WebhookEventType(rawValue: name) else {
                throw APIError.unprocessable("webhook.invalidEvents", "\(name.prefix(64)) is not an event; events are some of \(known).")
            }
            if !types.contains(type) { types.append(type) }
        }
        guard !types.isEmpty else { throw APIError.unprocessable("webhook.invalidEvents", "events names at least one of \(known).") }
        return types
    }
}
