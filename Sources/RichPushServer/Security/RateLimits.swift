import Hummingbird

/// The gateway's request limits: per user or token for signed-in requests, per address for requests without valid
/// credentials, and per sender for new notifications. Payload fetches and streams are not limited: each device makes
/// one per notification, bounded by the audience, and a campaign's burst must not be refused.
struct RateLimits: Sendable {
    let requests: RateLimiter?
    let anonymous: RateLimiter?
    let sends: RateLimiter?

    /// `requestsPerMinute` per user or token, a tenth of it (at least 1) per address without credentials;
    /// `sendsPerMinute` notifications per sender. 0 turns a limit off.
    init(requestsPerMinute: Int, sendsPerMinute: Int) {
        requests = requestsPerMinute > 0 ? RateLimiter(perMinute: requestsPerMinute) : nil
        anonymous = requestsPerMinute > 0 ? RateLimiter(perMinute: max(1, requestsPerMinute / 10)) : nil
        sends = sendsPerMinute > 0 ? RateLimiter(perMinute: sendsPerMinute) : nil
    }

    /// Charges a signed-in request to its token, or else its user.
    func admit(_ caller: AuthenticatedUser) throws {
        try check(requests?.take(caller.tokenId.map { "t:" + $0 } ?? "u:" + caller.username), "requests")
    }

    /// Charges a request whose credentials were missing or wrong to its address.
    func admitAnonymous(address: String) throws {
        try check(anonymous?.take(address), "requests without valid credentials from your address")
    }

    /// Charges a new notification to its sender, whichever token or password it came with.
    func admitSend(by caller: AuthenticatedUser) throws {
        try check(sends?.take(caller.username), "new notifications")
    }

    private func check(_ wait: Int?, _ what: String) throws {
        guard let wait else { return }
        throw APIError(
            .tooManyRequests, code: "rate.limited", message: "Too many \(what); try again in \(wait) seconds.",
            headers: [.retryAfter: String(wait)])
    }
}
