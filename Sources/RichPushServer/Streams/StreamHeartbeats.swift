import ServiceLifecycle

/// The heartbeat of every open stream, from one timer for the process: each interval, every stream writes a comment
/// line, so proxies and clients see an idle stream is alive.
struct StreamHeartbeats: Service {
    let broadcaster: EventBroadcaster
    let interval: Duration
    let clock: any Clock<Duration>

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await clock.sleep(for: interval)
                broadcaster.beat()
            }
        }
    }
}
