import Foundation
import Logging
import RichPushStore
import ServiceLifecycle

/// Writes the rest of the outboxes written in chunks: those whose first chunk a POST wrote before it answered, and
/// those whose writer died (a process that crashed or stopped while it wrote one left the rest unwritten, and the
/// notification must still reach its whole audience). On an exclusive store every unfinished outbox is this
/// process's own at start; on a shared one, those untouched for a lease are. On shutdown it stops between chunks.
struct OutboxCompleter: Service {
    let outbox: any Outbox
    let queue: OutboxQueue
    let doorbell: Doorbell
    /// How long an outbox's writer may be silent before another process takes it over.
    let lease: TimeInterval
    let clock: any WallClock
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await completeQueued() }
                try await completeAbandoned()
            }
        }
    }

    /// Each queued outbox at once, so a large one does not hold up the next campaign's.
    private func completeQueued() async {
        await withDiscardingTaskGroup { group in
            for await id in queue.ids {
                group.addTask { await complete(id) }
            }
        }
    }

    private func completeAbandoned() async throws {
        var stale = outbox.isShared ? lease : 0
        while true {
            do {
                for id in try await outbox.abandoned(stale: stale, now: clock.now) {
                    logger.notice("completing an abandoned outbox", metadata: ["richpush.notification.id": "\(id)"])
                    await complete(id)
                }
            } catch {
                logger.error("finding abandoned outboxes failed", metadata: ["error": "\(error)"])
            }
            stale = lease
            try await Task.sleep(for: .seconds(min(lease, 10)))
        }
    }

    private func complete(_ id: Int64) async {
        do {
            try await outbox.complete(of: id, now: clock.now) { doorbell.ring() }
        } catch  where !Task.isCancelled {
            // Taken over by this or another process once its lease runs out.
            logger.error("completing an outbox failed", metadata: ["richpush.notification.id": "\(id)", "error": "\(error)"])
        } catch {}
    }
}
