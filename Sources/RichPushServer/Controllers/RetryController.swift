import Hummingbird
import HummingbirdAuth
import Logging
import RichPushCore
import RichPushStore

/// `POST /api/notifications/{id}/retry` (marketers, admins): the failed deliveries of a notification go out again,
/// those to devices a hub reported gone excepted; a second call while they are pending finds none to retry.
struct RetryController {
    let outbox: any Outbox
    let dispatcherDoorbell: Doorbell
    let clock: any WallClock

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("notifications/:id/retry", use: retry)
    }

    @Sendable func retry(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "retry deliveries")
        let id = try context.id()
        let audit = { @Sendable (count: Int) in caller.audit(.notificationRetried, target: String(id), details: "\(count) deliveries") }
        switch try await outbox.retryFailed(of: id, audit: audit, now: clock.now) {
        case .retried(let count):
            if count > 0 { dispatcherDoorbell.ring() }
            context.logger.info("failed deliveries retried", metadata: ["richpush.notification.id": "\(id)", "richpush.count": "\(count)"])
            return EditedResponse(status: .accepted, response: RetryJSON(retried: count))
        case .notFound:
            throw APIError.notFound("notification.notFound", "There is no notification \(id).")
        case .removed:
            throw APIError.conflict("notification.removed", "Notification \(id) was canceled or recalled: nothing of it is sent again.")
        case .expired:
            throw APIError.conflict("notification.expired", "Notification \(id) has expired: its pushes are no longer sent.")
        }
    }
}
