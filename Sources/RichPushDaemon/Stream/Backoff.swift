/// How long to wait before the next reconnection attempt: exponential growth with "equal jitter".
///
/// Each delay is half the current ceiling plus a random part of the other half, so a crowd of daemons that lost
/// the gateway at the same moment spreads out, yet no daemon retries in a tight loop.
public struct Backoff: Sendable, Equatable {
    public let initial: Duration
    public let maximum: Duration
    /// Failed attempts since the last success.
    public private(set) var attempts = 0

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60)) {
        precondition(initial > .zero && maximum >= initial)
        self.initial = initial
        self.maximum = maximum
    }

    /// The ceiling of the next delay: `initial` doubled per failed attempt, never above `maximum`.
    public var ceiling: Duration {
        var ceiling = initial
        for _ in 0..<min(attempts, 32) {
            ceiling = ceiling * 2
            if ceiling >= maximum { return maximum }
        }
        return ceiling
    }

    /// The delay before the next attempt; counts the attempt.
    public mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = self.ceiling
        attempts += 1
        let half = ceiling / 2
        let milliseconds = Int64(half / .milliseconds(1))
        return half + .milliseconds(Int64.random(in: 0...max(milliseconds, 0), using: &generator))
    }

    public mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// Starts over after a connection that proved healthy.
    public mutating func reset() {
        attempts = 0
    }
}
