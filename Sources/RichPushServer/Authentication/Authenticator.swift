import Crypto
import Foundation
import HTTPTypes
import Logging
import RichPushCore
import RichPushStore
import Synchronization

/// Verifies HTTP Basic credentials and API tokens against the store: throttled per username and address, a cache hit
/// for a header verified before, otherwise a token's digest looked up or bcrypt run — once for any number of
/// concurrent requests carrying the same header.
///
/// A token is presented as `Authorization: Bearer rp_…`, or as the Basic password beside its owner's name for
/// clients that speak only Basic; a Basic password that is not its owner's token is then checked as a password.
final class Authenticator: Sendable {
    /// What one bcrypt run found, shared by every request that waited for it.
    private struct Verification: Sendable {
        var user: AuthenticatedUser?
        var proof: CredentialCache.Proof
    }

    let users: any UserRepository
    let tokens: any TokenRepository
    let signInFailures: any SignInFailureRepository
    /// Whether other processes share the store, and with it the sign-in failures.
    let isShared: Bool
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
        self.users = store.users
        self.tokens = store.tokens
        self.signInFailures = store.signInFailures
        self.isShared = store.isShared
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

    /// Whether `authorization` was verified before, recently or long enough ago to be read again: a caller that
    /// ``rememberedCaller(authorization:)`` answers without a password hash.
    func remembers(authorization: String) -> Bool {
        if case .miss = cache.lookup(authorization) { return false }
        return true
    }

    /// The caller of an `authorization` verified before, its stored hash read again once the remembered sign-in is
    /// older than the revalidation time; nil when there is none, or the credentials changed since.
    func rememberedCaller(authorization: String) async throws -> AuthenticatedUser? {
        switch cache.lookup(authorization) {
        case .hit(let user):
            return user
        case .stale(let entry):
            if let verification = try await recheck(entry), let user = verification.user, user.username == entry.user.username {
                cache.store(authorization, user: user, proof: verification.proof)
                return user
            }
            cache.remove(authorization)
            return nil
        case .miss:
            return nil
        }
    }

    /// The caller named by `authorization`, or a 401/429 ``APIError``. A header verified before is never throttled:
    /// it guesses nothing, and a guesser elsewhere must not lock its owner out.
    func authenticate(authorization: String?, address: String, logger: Logger) async throws -> AuthenticatedUser {
        guard let authorization else {
            throw APIError.unauthorized("Authentication is required: send HTTP Basic credentials or an API token.")
        }
        if authorization == SessionCookies.unconfirmedScheme {
            throw APIError(
                .forbidden, code: "auth.csrf",
                message: "A change made with the session cookie needs the X-Richpush-CSRF header that GET /api/session gives.")
        }
        if let user = try await rememberedCaller(authorization: authorization) { return user }
        if let token = APIToken.bearer(authorization) {
            return try await authenticate(token: token, authorization: authorization, address: address, logger: logger)
        }
        // Malformed headers are refused without counting: they guess nothing.
        guard let credentials = BasicCredentials(authorization: authorization) else {
            throw APIError.unauthorized("The Authorization header is not valid HTTP Basic credentials or a Bearer token.")
        }
        // No stored password holds a control character, and bcrypt would read only up to a NUL: refused unread.
        guard !PasswordHasher.containsControlCharacter(credentials.password) else {
            throw APIError.unauthorized("The username or password is wrong.")
        }
        try refuseIfThrottled(username: credentials.username, address: address)
        var verification: Verification?
        if APIToken.looksLikeToken(credentials.password) {
            verification = try await verify(token: credentials.password)
            if verification?.user?.username != credentials.username { verification = nil }
        }
        if verification == nil { verification = try await verify(credentials, authorization: authorization) }
        guard let verification, let user = verification.user else {
            try await recordFailure(username: credentials.username, address: address, logger: logger)
            throw APIError.unauthorized("The username or password is wrong.")
        }
        throttle.recordSuccess(username: credentials.username, address: address)
        if isShared {
            try await signInFailures.clear(keys: [LoginThrottle.pairKey(username: credentials.username, address: address)])
        }
        cache.store(authorization, user: user, proof: verification.proof)
        return user
    }

    /// A Bearer token: unknown, expired and revoked tokens count as failures of the address, like wrong passwords.
    private func authenticate(token: String, authorization: String, address: String, logger: Logger) async throws -> AuthenticatedUser {
        try refuseIfThrottled(username: "", address: address)
        guard let verification = try await verify(token: token), let user = verification.user else {
            try await recordFailure(username: "", address: address, logger: logger)
            throw APIError.tokenRefused("The token is unknown, expired or revoked.")
        }
        cache.store(authorization, user: user, proof: verification.proof)
        return user
    }

    private func refuseIfThrottled(username: String, address: String) throws {
        if let seconds = throttle.retryAfter(username: username, address: address) {
            throw APIError(
                .tooManyRequests, code: "auth.throttled",
                message: "Too many failed sign-ins; try again in \(seconds) seconds.", headers: [.retryAfter: String(seconds)])
        }
    }

    private func recordFailure(username: String, address: String, logger: Logger) async throws {
        throttle.recordFailure(username: username, address: address)
        try await shareFailure(username: username, address: address)
        metrics.authenticationFailed()
        logger.info("sign-in failed", metadata: ["richpush.username": "\(username)", "richpush.address": "\(address)"])
    }

    /// Whether what a cached header was verified against still holds, and for whom.
    private func recheck(_ entry: CredentialCache.Entry) async throws -> Verification? {
        switch entry.proof {
        case .password(let hash):
            // A changed hash means a changed password, or a new user of that name.
            guard let record = try await users.user(named: entry.user.username), record.passwordHash == hash else { return nil }
            return Verification(user: AuthenticatedUser(username: record.username, role: record.role), proof: entry.proof)
        case .token(let digest, _):
            return try await verify(tokenDigest: digest)
        }
    }

    private func verify(token: String) async throws -> Verification? {
        try await verify(tokenDigest: APIToken.digest(token))
    }

    private func verify(tokenDigest: String) async throws -> Verification? {
        guard let use = try await tokens.use(secretDigest: tokenDigest, now: .now) else { return nil }
        let passwordSession = use.name == SessionController.tokenName
        return Verification(
            user: AuthenticatedUser(
                username: use.username, role: use.role, tokenId: use.tokenId, tokenExpiresAt: passwordSession ? nil : use.expiresAt,
                inBrowserSession: passwordSession),
            proof: .token(secretDigest: tokenDigest, expiresAt: use.expiresAt))
    }

    private func verify(_ credentials: BasicCredentials, authorization: String) async throws -> Verification {
        let key = cache.key(authorization)
        let (task, started) = verifications.withLock { verifications in
            if let running = verifications[key] { return (running, false) }
            let task = Task { [users, hasher, decoyHash] in
                let record = try await users.user(named: credentials.username)
                let matches = try await hasher.verify(credentials.password, hash: record?.passwordHash ?? decoyHash)
                guard let record, matches else { return Verification(user: nil, proof: .password(hash: "")) }
                return Verification(
                    user: AuthenticatedUser(username: record.username, role: record.role), proof: .password(hash: record.passwordHash))
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
        guard isShared else { return }
        let keys = LoginThrottle.keys(username: username, address: address)
        let shared = try await signInFailures.record(keys: keys, at: .now, since: .now - throttle.window)
        throttle.adopt(shared, for: keys)
    }
}
