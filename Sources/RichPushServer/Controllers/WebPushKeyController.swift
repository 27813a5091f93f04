import Hummingbird
import RichPushCore
import RichPushHubs

/// `GET /api/webpush/key`, without credentials: the VAPID public key a web app passes to `pushManager.subscribe` as
/// `applicationServerKey`, so its subscriptions accept this gateway's pushes.
struct WebPushKeyController {
    let publicKey: String?

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("webpush/key", use: key)
    }

    @Sendable func key(_ request: Request, context: RichPushRequestContext) async throws -> WebPushKeyJSON {
        guard let publicKey else {
            throw APIError.notFound(
                "webpush.notConfigured",
                "Web Push is not configured: serve needs --\(ServeHubSettings.vapidKeyFile.name) and --\(ServeHubSettings.vapidSubject.name).")
        }
        return WebPushKeyJSON(publicKey: publicKey)
    }
}
