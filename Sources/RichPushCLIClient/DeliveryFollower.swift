public import RichPushCore

/// Follows one notification's status until it reaches a final state, reporting each change.
public struct DeliveryFollower: Sendable {
    let client: APIClient
    /// How often to ask while deliveries are going out.
    let interval: Duration
    /// How often to ask while the notification waits for its delivery time.
    let scheduledInterval: Duration

    public init(client: APIClient, interval: Duration = .milliseconds(500), scheduledInterval: Duration = .seconds(2)) {
        self.client = client
        self.interval = interval
        self.scheduledInterval = scheduledInterval
    }

    /// Polls until the state is final or `timeout` passes; returns the last status seen.
    public func follow(
        id: Int64, timeout: Duration? = nil, onChange: @Sendable (StatusJSON) -> Void
    ) async throws -> StatusJSON {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        var last: StatusJSON?
        while true {
            let status = try await client.status(id: id)
            if status != last { onChange(status) }
            last = status
            if status.state.isFinal { return status }
            let pause = status.state == .scheduled ? scheduledInterval : interval
            if let deadline {
                if clock.now >= deadline { return status }
                try await Task.sleep(for: min(pause, deadline - clock.now))
            } else {
                try await Task.sleep(for: pause)
            }
        }
    }
}
