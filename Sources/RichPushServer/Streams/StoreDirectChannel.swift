import Foundation
import RichPushCore
import RichPushHubs
import RichPushStore

/// The direct hub's channel: `rich` events appended to the store, then the owners' open streams woken.
///
/// Batches that arrive while events are being written wait, and go into the next transaction together. Each events
/// transaction holds the events counter's row (PostgreSQL) or the single writer (SQLite) until its commit is on the
/// disk, so batches written a transaction apiece queued behind one another's disk flushes.
final class StoreDirectChannel: DirectChannel {
    private let writes: GroupCommit<DeliveryJob>

    init(events: any EventLog, broadcaster: EventBroadcaster) {
        writes = GroupCommit { jobs in
            broadcaster.notify(try await events.appendRichEvents(for: jobs, now: .now))
        }
    }

    func publish(_ jobs: [DeliveryJob]) async throws {
        try await writes.commit(jobs)
    }
}
