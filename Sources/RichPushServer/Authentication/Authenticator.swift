import Foundation
import Logging
import RichPushStore

/// Verifies HTTP Basic credentials against the store: throttled per username and address, bcrypt on a miss of the
/// credential cache, a cache hit otherwise.
struct Authenticator: Sendable {
    let store: Store
    let cache: CredentialCache
    let throttle: LoginThrottle
    let hasher: PasswordHasher
    /// Verified when the user does not exist, so a missing user takes as long as a wrong password.
    let decoyHash: String
    let metrics: GatewayMetrics

    init(store: Store, hasher: PasswordHasher, revalidateAfter: TimeInterval, metrics: GatewayMetrics) async throws {
        self.store = store
        self.metrics = metrics
        self.cache = CredentialCache(revalidateAfter: revalidateAfter)
        self.throttle = LoginThrottle()
        self.hasher = hasher
        self.decoyHash = try await hasher.hash(UUID().uuidString)
    }

    /// The caller named by `authorization`, or a 401/429 ``APIError``.
    func authenticate(authorization: String?, address: String, logger: Logger) async throws -> AuthenticatedUser {
        guard let authorization else { throw APIError.unauthorized("Authentication is required: send HTTP Basic credentials.") }
        // Malformed headers are refused without counting: they guess nothing.
        guard let credentials = BasicCredentials(authorization: authorization) else {
            throw APIError.unauthorized("The Authorization header is not valid HTTP Basic credentials.")
        }
        if let seconds = throttle.retryAfter(username: credentials.username, address: address) {
            // A refused attempt counts as a failure on every process, so the wait grows wherever the guessing goes on.
            try await shareFailure(username: credentials.username, address: address)
            throw APIError(
                .tooManyRequests, code: "auth.throttled",
                message: "Too many failed sign-ins; try again in \(seconds) seconds.", headers: [.retryAfter: String(seconds)])
        }
        switch cache.lookup(credentials) {
        case .hit(let user):
            return user
        case .stale(let entry):
            if let record = try await store.user(named: credentials.username), record.passwordHash == entry.passwordHash {
                let user = AuthenticatedUser(username: record.username, role: record.role)
                cache.store(credentials, user: user, passwordHash: record.passwordHash)
                return user
            }
            cache.remove(credentials)
        case .miss:
            break
        }
        let record = try await store.user(named: credentials.username)
        let verified = try await hasher.verify(credentials.password, hash: record?.passwordHash ?? decoyHash)
        guard let record, verified else {
            throttle.recordFailure(username: credentials.username, address: address)
            try await shareFailure(username: credentials.username, address: address)
            metrics.authenticationFailures.increment()
            logger.info("sign-in failed", metadata: ["richpush.username": "\(credentials.username)", "richpush.address": "\(address)"])
            throw APIError.unauthorized("The username or password is wrong.")
        }
        let user = AuthenticatedUser(username: record.username, role: record.role)
        throttle.recordSuccess(username: credentials.username, address: address)
        if store.isShared {
            try await store.clearSignInFailures(keys: LoginThrottle.keys(username: credentials.username, address: address))
        }
        cache.store(credentials, user: user, passwordHash: record.passwordHash)
        return user
    }

    /// On a store shared by several processes, records the failure there and counts with every process's failures,
    /// so ten wrong passwords spread over the processes behind a load balancer throttle as ten on one would.
    private func shareFailure(username: String, address: String) async throws {
        guard store.isShared else { return }
        let keys = LoginThrottle.keys(username: username, address: address)
        let shared = try await store.recordSignInFailure(keys: keys, since: .now - throttle.window)
        throttle.adopt(shared, for: keys)
    }
}
