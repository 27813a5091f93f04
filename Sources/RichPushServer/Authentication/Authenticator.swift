import Crypto
import Foundation
import Logging
import RichPushStore
import Synchronization

/// Verifies HTTP Basic credentials against the store: throttled per username and address, a cache hit for a header
/// verified before, bcrypt otherwise — once for any number of concurrent requests carrying the same header.
final class Authenticator: Sendable {
    /// What one bcrypt run found, shared by every request that waited for it.
    private struct Verification: Sendable {
        var user: AuthenticatedUser?
        var passwordHash: String
    }

    let store: Store
    let cache: CredentialCache
    let throttle: LoginThrottle
    let hasher: PasswordHasher
    /// Verified when the user does not exist, so a missing user takes as long as a wrong password.
    let decoyHash: String
    let metrics: GatewayMetrics
    /// Verifications under way, so a burst of requests with one header (a device reconnecting many streams, a
    /// load test's connections) costs one bcrypt run, not one each.
    private let verifications = Mutex<[SHA256Digest: Task<Verification, any Error>]>([:])

    init(store: Store, hasher: PasswordHasher, revalidateAfter: TimeInterval, metrics: GatewayMetrics) async throws {
        self.store = store
        self.metrics = metrics
        self.cache = CredentialCache(revalidateAfter: revalidateAfter)
        self.throttle = LoginThrottle()
        self.hasher = hasher
        self.decoyHash = try await hasher.hash(UUID().uuidString)
    }

    /// The caller named by `authorization` when that header was verified recently: the answer that needs no await,
    /// for the payload fast path. Nil means "ask ``authenticate(authorization:address:logger:)``".
    func recentlyVerifiedCaller(authorization: String) -> AuthenticatedUser? {
        guard case .hit(let user) = cache.lookup(authorization) else { return nil }
        return user
    }

    /// The caller named by `authorization`, or a 401/429 ``APIError``. A header verified before is never throttled:
    /// it guesses nothing, and a guesser elsewhere must not lock its owner out.
    func authenticate(authorization: String?, address: String, logger: Logger) async throws -> AuthenticatedUser {
        guard let authorization else { throw APIError.unauthorized("Authentication is required: send HTTP Basic credentials.") }
        switch cache.lookup(authorization) {
        case .hit(let user):
            return user
        case .stale(let entry):
            if let record = try await store.user(named: entry.user.username), record.passwordHash == entry.passwordHash {
                let user = AuthenticatedUser(username: record.username, role: record.role)
                cache.store(authorization, user: user, passwordHash: record.passwordHash)
                return user
            }
            cache.remove(authorization)
        case .miss:
            break
        }
        // Malformed headers are refused without counting: they guess nothing.
        guard let credentials = BasicCredentials(authorization: authorization) else {
            throw APIError.unauthorized("The Authorization header is not valid HTTP Basic credentials.")
        }
        // No stored password holds a control character, and bcrypt would read only up to a NUL: refused unread.
        guard !PasswordHasher.containsControlCharacter(credentials.password) else {
            throw APIError.unauthorized("The username or password is wrong.")
        }
        if let seconds = throttle.retryAfter(username: credentials.username, address: address) {
            throw APIError(
                .tooManyRequests, code: "auth.throttled",
                message: "Too many failed sign-ins; try again in \(seconds) seconds.", headers: [.retryAfter: String(seconds)])
        }
        let verification = try await verify(credentials, authorization: authorization)
        guard let user = verification.user else {
            throttle.recordFailure(username: credentials.username, address: address)
            try await shareFailure(username: credentials.username, address: address)
            metrics.authenticationFailures.increment()
            logger.info("sign-in failed", metadata: ["richpush.username": "\(credentials.username)", "richpush.address": "\(address)"])
            throw APIError.unauthorized("The username or password is wrong.")
        }
        throttle.recordSuccess(username: credentials.username, address: address)
        if store.isShared {
            try await store.clearSignInFailures(keys: [LoginThrottle.pairKey(username: credentials.username, address: address)])
        }
        cache.store(authorization, user: user, passwordHash: verification.passwordHash)
        return user
    }

    private func verify(_ credentials: BasicCredentials, authorization: String) async throws -> Verification {
        let key = cache.key(authorization)
        let (task, started) = verifications.withLock { verifications in
            if let running = verifications[key] { return (running, false) }
            let task = Task { [store, hasher, decoyHash] in
                let record = try await store.user(named: credentials.username)
                let matches = try await hasher.verify(credentials.password, hash: record?.passwordHash ?? decoyHash)
                guard let record, matches else { return Verification(user: nil, passwordHash: "") }
                return Verification(user: AuthenticatedUser(username: record.username, role: record.role), passwordHash: record.passwordHash)
            }
            verifications[key] = task
            return (task, true)
        }
        defer { if started { verifications.withLock { _ = $0.removeValue(forKey: key) } } }
        return try await task.value
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
