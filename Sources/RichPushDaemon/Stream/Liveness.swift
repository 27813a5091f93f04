/// Tells a live stream from a dead one: the gateway writes at least a heartbeat comment every interval, so a stream
/// silent for longer than `timeout` is dead even if TCP has not noticed (a cut cable, a NAT that forgot us, a
/// laptop that slept).
///
/// Instants come from `ContinuousClock`, which on Linux counts time spent suspended, so a connection that slept
/// through a night is declared dead on the first check after waking.
public struct Liveness: Sendable {
    public let timeout: Duration
    public private(set) var lastActivity: ContinuousClock.Instant

    public init(timeout: Duration, now: ContinuousClock.Instant = .now) {
        self.timeout = timeout
        self.lastActivity = now
    }

    /// Bytes arrived: an event or a heartbeat.
    public mutating func noteActivity(at now: ContinuousClock.Instant = .now) {
        lastActivity = now
    }

    public func isDead(at now: ContinuousClock.Instant = .now) -> Bool {
        now - lastActivity > timeout
    }

    /// How long the stream has been silent.
    public func silence(at now: ContinuousClock.Instant = .now) -> Duration {
        now - lastActivity
    }
}
