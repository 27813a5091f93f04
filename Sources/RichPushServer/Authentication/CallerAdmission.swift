import Hummingbird

/// What follows a sign-in: the connection no longer counts as unauthenticated, and the request is charged to the
/// caller's rate limit.
struct CallerAdmission: RouterMiddleware {
    typealias Context = RichPushRequestContext
    let connections: UnauthenticatedConnections
    let rateLimits: RateLimits

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let caller = try context.caller()
        connections.signedIn(context.connection)
        // A stream is one long request per device, bounded by the stream limit per user.
        if request.uri.path != "/api/me/stream" { try rateLimits.admit(caller) }
        return try await next(request, context)
    }
}
