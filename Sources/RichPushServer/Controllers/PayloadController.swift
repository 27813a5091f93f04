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
    let gateway: Gateway

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("notifications/:id", use: fetch)
        group.head("notifications/:id", use: fetch)
    }

    @Sendable func fetch(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let id = try context.id()
        let caller = try await authorize(request, context: context, id: id)
        guard let record = try await gateway.payloads.notification(id: id) else {
            gateway.metrics.payloadFetch("not_found")
            throw APIError.notFound("notification.notFound", "There is no notification \(id).")
        }
        if let caller {
            guard try await gateway.mayRead(record, caller: caller) else {
                gateway.metrics.payloadFetch("not_found")
                throw APIError.notFound("notification.notFound", "There is no notification \(id).")
            }
        }
        guard !record.isGone(at: .now) else {
            gateway.metrics.payloadFetch("gone")
            let reason = record.deletedAt != nil ? "was recalled" : record.canceledAt != nil ? "was canceled" : "has expired"
            throw APIError.gone("notification.gone", "Notification \(id) \(reason).")
        }
        if let caller, try await gateway.payloads.isRecipient(notificationId: id, username: caller.username) {
            try await gateway.payloads.recordFetch(notificationId: id, username: caller.username)
        }
        gateway.metrics.payloadFetch("ok")
        switch record.payload {
        case .image(let imageId):
            guard let image = try await gateway.payloads.image(id: imageId) else {
                throw APIError.gone("image.gone", "The image of notification \(id) is no longer stored.")
            }
            return imageResponse(image, request: request)
        case .url(let url):
            return Response(status: .found, headers: [.location: url, .cacheControl: "private"])
        case .text(let text):
            let buffer = ByteBuffer(string: text)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "private", .contentLength: String(buffer.readableBytes)],
                body: request.method == .head ? .init() : .init(byteBuffer: buffer))
        }
    }

    /// nil for a valid signed link; otherwise the Basic-authenticated caller.
    private func authorize(_ request: Request, context: RichPushRequestContext, id: Int64) async throws -> AuthenticatedUser? {
        let query = request.uri.queryParameters
        if let signature = query.get("sig") {
            guard let expiry = query.get("exp").flatMap(Int64.init),
                gateway.linkSigner.isValid(id: id, expiry: expiry, signature: signature)
            else { throw APIError.forbidden("The payload link is invalid or has expired; ask /info for a new one.") }
            return nil
        }
        return try await gateway.authenticator.authenticate(
            authorization: request.headers[.authorization],
            address: gateway.configuration.trustedProxies.clientAddress(of: request, context: context), logger: context.logger)
    }

    private func imageResponse(_ image: PayloadCache.Image, request: Request) -> Response {
        var headers: HTTPFields = [.eTag: image.entityTag, .cacheControl: "private"]
        if let candidates = request.headers[.ifNoneMatch], Self.matches(candidates, image.entityTag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = image.contentType
        headers[.contentLength] = String(image.bytes.readableBytes)
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: image.bytes))
    }

    /// `If-None-Match` uses weak comparison: `*`, or any listed tag equal to ours with or without `W/`.
    static func matches(_ header: String, _ entityTag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == entityTag
        }
    }
}
