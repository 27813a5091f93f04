import Foundation
import Synchronization

/// Slows password guessing without handing anyone a way to lock others out (OWASP's advice on lockout).
///
/// Failures count against two keys: the pair of username and client address, and the address alone. A pair with
/// `pairLimit` failures within `window` is refused until the oldest of them leaves the window, so a guesser cannot
/// lock the user out from any other address. An address with `addressLimit` failures (guessing across usernames) is
/// refused the same way; its limit is higher because one address may carry a whole office behind a NAT. Refused
/// attempts are not counted, so the wait never grows while someone keeps knocking, and a success clears only its own
/// pair: a guesser's own valid account cannot reset the address. Sign-ins already verified (the credential cache)
/// are never throttled.
final class LoginThrottle: Sendable {
    let pairLimit: Int
    let addressLimit: Int
    let window: TimeInterval
    /// Bounds memory under a flood of distinct names or addresses; the oldest keys go first.
    let maximumKeys: Int

    private let failures = Mutex<[String: [Date]]>([:])

    init(pairLimit: Int = 10, addressLimit: Int = 100, window: TimeInterval = 300, maximumKeys: Int = 100_000) {
        self.pairLimit = pairLimit
        self.addressLimit = addressLimit
        self.window = window
        self.maximumKeys = maximumKeys
    }

    /// The fewest failures that throttle any key: what the store is asked for.
    var smallestLimit: Int { min(pairLimit, addressLimit) }

    /// Seconds to wait when the pair or the address is throttled; nil when the attempt may go on. Nothing is recorded.
    func retryAfter(username: String, address: String, now: Date = .now) -> Int? {
        failures.withLock { failures in
            guard !failures.isEmpty else { return nil }
            let waits = Self.keys(username: username, address: address).compactMap { key in wait(for: key, in: &failures, now: now) }
            return waits.max().map { max(1, Int($0.rounded(.up))) }
        }
    }

    func recordFailure(username: String, address: String, now: Date = .now) {
        failures.withLock { failures in
            if failures.count >= maximumKeys { prune(&failures, now: now) }
            for key in Self.keys(username: username, address: address) { Self.append(now, to: key, in: &failures) }
        }
    }

    /// The right password from this address: its pair starts afresh.
    func recordSuccess(username: String, address: String) {
        failures.withLock { failures in
            guard !failures.isEmpty else { return }
            failures[Self.pairKey(username: username, address: address)] = nil
        }
    }

    /// Takes the failures the store holds for `keys` (from every process sharing it) as this throttle's own; a key
    /// without failures there has none here either.
    func adopt(_ shared: [String: [Date]], for keys: [String]) {
        failures.withLock { failures in
            for key in keys { failures[key] = shared[key] }
        }
    }

    /// Takes the store's throttled keys as the only ones: a key throttled here but not there was cleared by a success
    /// or aged out on another process. Keys below their limit stay as they are, since they block nothing.
    func adoptThrottled(_ shared: [String: [Date]], now: Date = .now) {
        failures.withLock { failures in
            for (key, times) in failures where shared[key] == nil {
                if times.count(where: { now.timeIntervalSince($0) < window }) >= limit(of: key) { failures[key] = nil }
            }
            for (key, times) in shared { failures[key] = times }
        }
    }

    /// The keys a sign-in as `username` from `address` counts against, as the store records them.
    static func keys(username: String, address: String) -> [String] {
        [pairKey(username: username, address: address), addressKey(address)]
    }

    /// The key a success clears.
    static func pairKey(username: String, address: String) -> String {
        // A space is in neither a username nor an address, so no two pairs share a key.
        "p:" + username + " " + address
    }

    private static func addressKey(_ address: String) -> String { "a:" + address }

    private func limit(of key: String) -> Int { key.hasPrefix("p:") ? pairLimit : addressLimit }

    private func wait(for key: String, in failures: inout [String: [Date]], now: Date) -> TimeInterval? {
        guard var times = failures[key] else { return nil }
        times.removeAll { now.timeIntervalSince($0) >= window }
        failures[key] = times.isEmpty ? nil : times
        let limit = limit(of: key)
        guard times.count >= limit else { return nil }
        // Throttled until the failure that keeps the count at the limit leaves the window.
        let pivot = times[times.count - limit]
        return window - now.timeIntervalSince(pivot)
    }

    private static func append(_ time: Date, to key: String, in failures: inout [String: [Date]]) {
        var times = failures[key, default: []]
        times.append(time)
        // Only the newest `limit` failures decide anything; keep no more than the store does.
        if times.count > Self.keptPerKey { times.removeFirst(times.count - Self.keptPerKey) }
        failures[key] = times
    }

    /// At least the larger limit, so an address's count is exact.
    static let keptPerKey = 128

    private func prune(_ failures: inout [String: [Date]], now: Date) {
        failures = failures.filter { _, times in times.contains { now.timeIntervalSince($0) < window } }
        if failures.count >= maximumKeys {
            let newestFirst = failures.sorted { ($0.value.last ?? .distantPast) > ($1.value.last ?? .distantPast) }
            failures = Dictionary(uniqueKeysWithValues: newestFirst.prefix(maximumKeys / 2).map { ($0.key, $0.value) })
        }
    }
}
