import Foundation
import Synchronization

/// Slows password guessing: after `limit` failures within `window` for one username or one client address, further
/// attempts are refused until enough failures age out of the window. Refused attempts count as failures too, so the
/// wait grows while the guessing goes on. A success resets the username and the address.
final class LoginThrottle: Sendable {
    let limit: Int
    let window: TimeInterval
    /// Bounds memory under a flood of distinct names or addresses; the oldest keys go first.
    let maximumKeys: Int

    private let failures = Mutex<[String: [Date]]>([:])

    init(limit: Int = 10, window: TimeInterval = 300, maximumKeys: Int = 100_000) {
        self.limit = limit
        self.window = window
        self.maximumKeys = maximumKeys
    }

    /// Seconds to wait when `username` or `address` is blocked; nil when the attempt may proceed. A blocked attempt
    /// is recorded as a failure.
    func retryAfter(username: String, address: String, now: Date = .now) -> Int? {
        failures.withLock { failures in
            guard !failures.isEmpty else { return nil }
            let waits = [Self.userKey(username), Self.addressKey(address)].compactMap { key in
                wait(for: key, in: &failures, now: now)
            }
            guard let longest = waits.max() else { return nil }
            Self.append(now, to: Self.userKey(username), in: &failures)
            Self.append(now, to: Self.addressKey(address), in: &failures)
            return max(1, Int(longest.rounded(.up)))
        }
    }

    /// Whether `username` or `address` would be refused now, without counting anything: for answers that are
    /// refused anyway when this says yes.
    func isBlocking(username: String, address: String, now: Date = .now) -> Bool {
        failures.withLock { failures in
            guard !failures.isEmpty else { return false }
            return [Self.userKey(username), Self.addressKey(address)].contains { key in
                guard let times = failures[key] else { return false }
                return times.count(where: { now.timeIntervalSince($0) < window }) >= limit
            }
        }
    }

    func recordFailure(username: String, address: String, now: Date = .now) {
        failures.withLock { failures in
            if failures.count >= maximumKeys { prune(&failures, now: now) }
            Self.append(now, to: Self.userKey(username), in: &failures)
            Self.append(now, to: Self.addressKey(address), in: &failures)
        }
    }

    func recordSuccess(username: String, address: String) {
        failures.withLock { failures in
            guard !failures.isEmpty else { return }
            failures[Self.userKey(username)] = nil
            failures[Self.addressKey(address)] = nil
        }
    }

    /// Takes the failures the store holds for `keys` (from every process sharing it) as this throttle's own; a key
    /// without failures there has none here either.
    func adopt(_ shared: [String: [Date]], for keys: [String]) {
        failures.withLock { failures in
            for key in keys { failures[key] = shared[key] }
        }
    }

    /// Takes the store's throttled keys as the only ones: a key blocked here but not there was cleared by a success
    /// or aged out on another process. Keys below the limit stay as they are, since they block nothing.
    func adoptThrottled(_ shared: [String: [Date]], now: Date = .now) {
        failures.withLock { failures in
            for (key, times) in failures where shared[key] == nil {
                if times.filter({ now.timeIntervalSince($0) < window }).count >= limit { failures[key] = nil }
            }
            for (key, times) in shared { failures[key] = times }
        }
    }

    /// The keys a sign-in as `username` from `address` counts against, as the store records them.
    static func keys(username: String, address: String) -> [String] {
        [userKey(username), addressKey(address)]
    }

    private func wait(for key: String, in failures: inout [String: [Date]], now: Date) -> TimeInterval? {
        guard var times = failures[key] else { return nil }
        times.removeAll { now.timeIntervalSince($0) >= window }
        failures[key] = times.isEmpty ? nil : times
        guard times.count >= limit else { return nil }
        // Blocked until the failure that keeps the count at the limit leaves the window.
        let pivot = times[times.count - limit]
        return window - now.timeIntervalSince(pivot)
    }

    private static func append(_ time: Date, to key: String, in failures: inout [String: [Date]]) {
        var times = failures[key, default: []]
        times.append(time)
        // Only the newest `limit` failures decide anything; keep a few more for the window arithmetic.
        if times.count > 64 { times.removeFirst(times.count - 64) }
        failures[key] = times
    }

    private func prune(_ failures: inout [String: [Date]], now: Date) {
        failures = failures.filter { _, times in times.contains { now.timeIntervalSince($0) < window } }
        if failures.count >= maximumKeys {
            let newestFirst = failures.sorted { ($0.value.last ?? .distantPast) > ($1.value.last ?? .distantPast) }
            failures = Dictionary(uniqueKeysWithValues: newestFirst.prefix(maximumKeys / 2).map { ($0.key, $0.value) })
        }
    }

    private static func userKey(_ username: String) -> String { "u:" + username }
    private static func addressKey(_ address: String) -> String { "a:" + address }
}
