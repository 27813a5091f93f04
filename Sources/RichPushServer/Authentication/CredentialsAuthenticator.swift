import Hummingbird
import HummingbirdAuth

/// HummingbirdAuth's authenticator for every `/api` route behind it: HTTP Basic credentials or an API token, verified
/// by ``Authenticator`` (its cache, its throttle, one bcrypt run for a burst of one header). Missing or wrong
/// credentials are a 401 charged to the address's rate limit, so no route behind it runs without a caller.
struct CredentialsAuthenticator: AuthenticatorMiddleware {
    typealias Context = RichPushRequestContext
    let authenticator: Authenticator
    let rateLimits: RateLimits
    var trustedProxies = TrustedProxies()

    func authenticate(request: Request, context: Context) async throws -> AuthenticatedUser? {
        let address = trustedProxies.clientAddress(of: request, context: context)
        do {
            return try await authenticator.authenticate(authorization: request.headers[.authorization], address: address, logger: context.logger)
        } catch let error as APIError where error.status == .unauthorized {
            try rateLimits.admitAnonymous(address: address)
            throw error
        }
    }
}
