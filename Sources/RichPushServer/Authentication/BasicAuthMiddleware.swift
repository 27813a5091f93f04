import Hummingbird

/// Requires HTTP Basic credentials on every route behind it and puts the caller in the context.
struct BasicAuthMiddleware: RouterMiddleware {
    typealias Context = RichPushRequestContext
    let authenticator: Authenticator
    let connections: UnauthenticatedConnections
    var trustedProxies = TrustedProxies()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.identity = try await authenticator.authenticate(
            authorization: request.headers[.authorization], address: trustedProxies.clientAddress(of: request, context: context),
            logger: context.logger)
        connections.signedIn(context.connection)
        return try await next(request, context)
    }
}
