import Foundation
import Logging
import RichPushStore
import ServiceLifecycle

/// Completes the outboxes whose writer died: a process that crashed while it wrote a large notification's outbox in
/// chunks left the rest unwritten, and the notification must still reach its whole audience. On an exclusive store
/// every unfinished outbox is this process's own at start; on a shared one, those untouched for a lease are.
struct OutboxCompleter: Service {
    let store: Store
    let doorbell: Doorbell
    /// How long an outbox's writer may be silent before another process takes it over.
    let lease: TimeInterval
    let clock: any WallClock
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var stale = store.isShared ? lease : 0
            while true {
                do {
                    for id in try await store.abandonedOutboxes(stale: stale, now: clock.now) {
                        logger.notice("completing an abandoned outbox", metadata: ["richpush.notification.id": "\(id)"])
                        try await store.completeOutbox(of: id, now: clock.now) { doorbell.ring() }
                    }
                } catch {
                    logger.error("completing outboxes failed", metadata: ["error": "\(error)"])
                }
                stale = lease
                try await Task.sleep(for: .seconds(min(lease, 10)))
            }
        }
    }
}
