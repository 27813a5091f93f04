import Hummingbird
import HummingbirdAuth

/// What follows a sign-in: the connection no longer counts as unauthenticated, and the request is charged to the
/// caller's rate limit, unless the routes behind it are bounded otherwise (`rateLimits` nil): a stream is one long
/// request per device, bounded by the stream limit per user.
struct CallerAdmission: RouterMiddleware {
    typealias Context = RichPushRequestContext
    let connections: UnauthenticatedConnections
    let rateLimits: RateLimits?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let caller = try context.requireIdentity()
        connections.signedIn(context.connection)
        try rateLimits?.admit(caller)
        return try await next(request, context)
    }
}
