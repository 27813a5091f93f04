import Foundation
import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// A user's feed and its state, synced across the user's devices: `/api/me/notifications`.
struct FeedController {
    let feeds: any FeedRepository
    let installations: any InstallationRepository
    let broadcaster: EventBroadcaster
    let clock: any WallClock
    let statePushDoorbell: Doorbell

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("me/notifications", use: feed)
        group.patch("me/notifications/:id", use: update)
        group.delete("me/notifications/:id", use: remove)
        group.post("me/notifications/:id/receipts", use: receipt)
    }

    @Sendable func feed(_ request: Request, context: RichPushRequestContext) async throws -> FeedJSON {
        let caller = try context.requireIdentity()
        let since = try request.uri.integer("since", in: 0...Int64.max)
        let limit = Int(try request.uri.integer("limit", in: 1...200) ?? 50)
        let page = try await feeds.items(
            username: caller.username, since: since, limit: limit, now: clock.now)
        let language = request.headers[.acceptLanguage]
        return FeedJSON(items: page.items.map { FeedItemJSON($0, acceptLanguage: language) }, cursor: String(page.cursor))
    }

    struct UpdateRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "feed"
        static func refusedChoiceCode(field: String) -> String { "feed.invalidState" }
        var readState: ReadState?
        var userActionState: UserActionState?
        /// The button pressed: an `open` action's with `activated`, a `dismiss` action's with `dismissed`.
        var action: String?
        /// The device that made the change: it gets no state push about it.
        var installationId: String?
    }

    @Sendable func update(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        let id = try context.id()
        let body = try await request.decode(as: UpdateRequest.self, context: context)
        guard body.readState != nil || body.userActionState != nil else {
            throw APIError.unprocessable("feed.nothingToChange", "Send readState, userActionState or both.")
        }
        if let pressed = body.action {
            guard let item = try await feeds.item(username: caller.username, notificationId: id, now: clock.now) else {
                throw APIError.notFound("notification.notFound", "Notification \(id) is not in your feed.")
            }
            try Self.check(pressed, of: item, with: body.userActionState)
        }
        guard
            let (item, cursor) = try await feeds.updateState(
                username: caller.username, notificationId: id, readState: body.readState, userActionState: body.userActionState,
                action: body.action, origin: body.installationId, now: clock.now)
        else { throw APIError.notFound("notification.notFound", "Notification \(id) is not in your feed.") }
        if cursor != nil {
            broadcaster.notify([caller.username])
            statePushDoorbell.ring()
        }
        return FeedItemJSON(item, acceptLanguage: request.headers[.acceptLanguage])
    }

    /// Refuses a button the notification does not have, or one reported with a state it does not lead to.
    private static func check(_ pressed: String, of item: FeedItem, with state: UserActionState?) throws {
        guard let action = item.button(pressed) else {
            throw APIError.unprocessable("feed.invalidAction", "Notification \(item.id) has no action \(pressed.prefix(32)).")
        }
        switch (action.kind, state) {
        case (.open, .activated), (.dismiss, .dismissed): return
        case (.http, _):
            throw APIError.unprocessable(
                "feed.invalidAction", "Action \(action.id) is an http action: POST /api/me/notifications/\(item.id)/actions/\(action.id) runs it.")
        default:
            let expected: UserActionState = action.kind == .open ? .activated : .dismissed
            throw APIError.unprocessable(
                "feed.invalidAction", "Action \(action.id) is reported with userActionState \(expected.rawValue).")
        }
    }

    /// Removes the notification from the caller's feed; the caller's devices hear of it on their streams and by state
    /// pushes, but the one `?installationId=` names, which made the change.
    @Sendable func remove(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        let id = try context.id()
        let origin = request.uri.queryParameters.get("installationId")
        guard
            try await feeds.remove(
                username: caller.username, notificationId: id, origin: origin, now: clock.now) != nil
        else {
            throw APIError.notFound("notification.notFound", "Notification \(id) is not in your feed.")
        }
        broadcaster.notify([caller.username])
        statePushDoorbell.ring()
        return Response(status: .noContent)
    }

    struct ReceiptRequest: Decodable, RequestErrorDomain {
        static let errorDomain = "receipt"
        var installationId: String
        var event: ReceiptEvent
    }

    @Sendable func receipt(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        let id = try context.id()
        let body = try await request.decode(as: ReceiptRequest.self, context: context)
        guard let installation = try await installations.installation(id: body.installationId), installation.owner == caller.username else {
            throw APIError.unprocessable("installation.notFound", "You have no installation \(body.installationId.prefix(64)).")
        }
        guard try await feeds.item(username: caller.username, notificationId: id, now: clock.now) != nil else {
            throw APIError.notFound("notification.notFound", "Notification \(id) is not in your feed.")
        }
        let created = try await feeds.recordReceipt(notificationId: id, installationId: installation.id, event: body.event, now: .now)
        GatewayTracing.note(notification: id)
        return EditedResponse(
            status: created ? .created : .ok, response: ReceiptJSON(notificationId: id, installationId: installation.id, event: body.event))
    }
}
