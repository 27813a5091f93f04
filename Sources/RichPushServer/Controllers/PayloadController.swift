import Foundation
import Hummingbird
import NIOCore
import RichPushCore
import RichPushStore

/// `GET`/`HEAD /api/notifications/{id}`: the rich payload itself, the request every device makes after a push.
///
/// It authenticates by itself because a signed link (`?exp=…&sig=…`) replaces Basic auth for fetchers that cannot
/// send headers. Everything on this path is served from memory after the first fetch.
struct PayloadController {
    let payloads: PayloadMemory
    let clock: any WallClock
    let metrics: GatewayMetrics
    let linkSigner: LinkSigner
    let connections: UnauthenticatedConnections
    let authenticator: Authenticator
    let trustedProxies: TrustedProxies

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("notifications/:id", use: fetch)
        group.head("notifications/:id", use: fetch)
    }

    @Sendable func fetch(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let id = try context.id()
        let installationId = try request.uri.queryParameters.get("installationId").map { try InstallationRequest.validId(String($0)) }
        let caller = try await authorize(request, context: context, id: id, installationId: installationId)
        GatewayTracing.note(notification: id)
        let stored = try await payloads.notification(id: id)
        var isRecipient = false
        if let caller, stored != nil {
            isRecipient = try await payloads.isRecipient(notificationId: id, username: caller.username)
        }
        let record: NotificationRecord
        switch PayloadAccess.decide(stored, caller: caller, isRecipient: isRecipient, at: clock.now) {
        case .notFound:
            metrics.payloadFetch(.notFound)
            throw APIError.notFound("notification.notFound", "There is no notification \(id).")
        case .gone(let reason):
            metrics.payloadFetch(.gone)
            throw APIError.gone("notification.gone", "Notification \(id) \(reason).")
        case .served(let served, let recordsFetch):
            // HEAD only asks what a fetch would get: no receipt. A signed link counts for the device it names alone.
            if recordsFetch, request.method != .head, caller != nil || installationId != nil {
                payloads.recordFetch(
                    PayloadFetch(notificationId: id, username: caller?.username, installationId: installationId, at: clock.now))
            }
            record = served
        }
        var image: PayloadMemory.Image?
        if case .image(let imageId) = record.payload {
            image = try await payloads.image(id: imageId)
            guard image != nil else { throw APIError.gone("image.gone", "The image of notification \(id) is no longer stored.") }
        }
        metrics.payloadFetch(.served)
        let localization = record.content.localization(forAcceptLanguage: request.headers[.acceptLanguage])?.localization
        let reply = PayloadReply(
            record.payload(in: localization), image: image, method: request.method, conditions: FetchConditions(request.headers))
        if reply.status == .rangeNotSatisfiable, let image {
            throw APIError.rangeNotSatisfiable("the image of notification \(id)", size: image.bytes.readableBytes)
        }
        payloads.egress?.add(reply.bodyBytes)
        return Response(status: reply.status, headers: reply.headers, body: reply.body.map { .init(byteBuffer: $0) } ?? .init())
    }

    /// nil for a valid signed link (of the device `installationId`, when it names one); otherwise the
    /// Basic-authenticated caller.
    private func authorize(
        _ request: Request, context: RichPushRequestContext, id: Int64, installationId: String?
    ) async throws -> AuthenticatedUser? {
        let query = request.uri.queryParameters
        if let signature = query.get("sig") {
            guard let expiry = query.get("exp").flatMap(Int64.init),
                linkSigner.isValid(id: id, expiry: expiry, installationId: installationId, signature: signature)
            else { throw APIError.forbidden("The payload link is invalid or has expired; ask /info for a new one.") }
            connections.signedIn(context.connection)
            return nil
        }
        let caller = try await authenticator.authenticate(
            authorization: request.headers[.authorization],
            address: trustedProxies.clientAddress(of: request, context: context), logger: context.logger)
        connections.signedIn(context.connection)
        return caller
    }
}
