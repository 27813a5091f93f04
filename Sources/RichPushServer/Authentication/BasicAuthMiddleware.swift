import Hummingbird

/// Requires HTTP Basic credentials or an API token on every route behind it, puts the caller in the context and
/// charges the request to the caller's rate limit — or, when the credentials are missing or wrong, to the address's.
struct BasicAuthMiddleware: RouterMiddleware {
    typealias Context = RichPushRequestContext
    let authenticator: Authenticator
    let connections: UnauthenticatedConnections
    let rateLimits: RateLimits
    var trustedProxies = TrustedProxies()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let address = trustedProxies.clientAddress(of: request, context: context)
        let caller: AuthenticatedUser
        do {
            caller = try await authenticator.authenticate(authorization: request.headers[.authorization], address: address, logger: context.logger)
        } catch let error as APIError where error.status == .unauthorized {
            try rateLimits.admitAnonymous(address: address)
            throw error
        }
        context.identity = caller
        connections.signedIn(context.connection)
        // A stream is one long request per device, bounded by the stream limit per user.
        if request.uri.path != "/api/me/stream" { try rateLimits.admit(caller) }
        return try await next(request, context)
    }
}
