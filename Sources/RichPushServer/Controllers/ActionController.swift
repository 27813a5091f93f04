import Foundation
import Hummingbird
import HummingbirdAuth
import RichPushCore
import RichPushStore

/// `POST /api/me/notifications/{id}/actions/{actionId}`: a user pressed an `http` action's button. Her state becomes
/// read and activated with that action, as a `PATCH` with `"action"` makes it, and the gateway makes the action's
/// request once, answering `202` before the request ends.
struct ActionController {
    let feeds: any FeedRepository
    let runner: ActionRunner
    let broadcaster: EventBroadcaster
    let clock: any WallClock
    let statePushDoorbell: Doorbell

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("me/notifications/:id/actions/:actionId", use: press)
    }

    @Sendable func press(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        let id = try context.id()
        let actionId = try context.parameters.require("actionId")
        let origin = request.uri.queryParameters.get("installationId")
        guard let item = try await feeds.item(username: caller.username, notificationId: id, now: clock.now) else {
            throw APIError.notFound("notification.notFound", "Notification \(id) is not in your feed.")
        }
        guard let action = item.button(actionId) else {
            throw APIError.notFound("action.notFound", "Notification \(id) has no action \(actionId.prefix(32)).")
        }
        guard action.kind == .http else {
            throw APIError.unprocessable(
                "action.notHTTP",
                "Action \(action.id) is a \(action.kind.rawValue) action, which the device performs; report it with PATCH /api/me/notifications/\(id)."
            )
        }
        guard
            let (pressed, cursor, run) = try await feeds.beginActionRun(
                username: caller.username, notificationId: id, action: action.id, origin: origin, now: clock.now)
        else { throw APIError.notFound("notification.notFound", "Notification \(id) is not in your feed.") }
        if run { runner.start(action, of: id, for: caller.username) }
        if cursor != nil {
            broadcaster.notify([caller.username])
            statePushDoorbell.ring()
        }
        return EditedResponse(status: .accepted, response: FeedItemJSON(pressed, acceptLanguage: request.headers[.acceptLanguage]))
    }
}
