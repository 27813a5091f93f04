import Synchronization

/// Token buckets by key (a user, a token, an address): each holds up to `capacity` requests and refills at
/// `capacity` a minute, so a client may burst to the limit and then goes on at its pace.
///
/// Buckets live in this process's memory: behind a load balancer each process keeps its own, so a client gets at most
/// the limit times the number of processes — the contract's bound, without a database round trip per request.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let capacity: Double
    /// Bounds memory under a flood of distinct keys; full buckets, which limit nothing, are dropped first.
    let maximumKeys: Int
    private let refillPerSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    init(perMinute: Int, maximumKeys: Int = 100_000) {
        capacity = Double(perMinute)
        refillPerSecond = Double(perMinute) / 60
        self.maximumKeys = maximumKeys
    }

    /// Takes one request from `key`'s bucket: nil when it may go on, else the whole seconds until it may.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[key].map { refilled($0, at: now) } ?? Bucket(tokens: capacity, updated: now)
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= maximumKeys { prune(&buckets, now: now) }
            buckets[key] = bucket
            return nil
        }
    }

    private func refilled(_ bucket: Bucket, at now: ContinuousClock.Instant) -> Bucket {
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Bucket(tokens: min(capacity, bucket.tokens + max(0, seconds) * refillPerSecond), updated: now)
    }

    private func prune(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { refilled($0.value, at: now).tokens < capacity }
        // Still full of clients mid-burst: forgetting them all lets each start afresh once, which is harmless.
        if buckets.count >= maximumKeys { buckets.removeAll(keepingCapacity: true) }
    }
}
