import Foundation
import RichPushCore
import RichPushHubs
import RichPushStore

/// The direct hub's channel: `rich` events appended to the store, then the owners' open streams woken.
///
/// Batches that arrive while events are being written wait, and go into the next transaction together. Each events
/// transaction holds the events counter's row (PostgreSQL) or the single writer (SQLite) until its commit is on the
/// disk, so batches written a transaction apiece queued behind one another's disk flushes.
actor StoreDirectChannel: DirectChannel {
    let events: any EventLog
    let broadcaster: EventBroadcaster
    private var waiting: [(jobs: [DeliveryJob], written: CheckedContinuation<Void, any Error>)] = []
    private var isWriting = false

    init(events: any EventLog, broadcaster: EventBroadcaster) {
        self.events = events
        self.broadcaster = broadcaster
    }

    func publish(_ jobs: [DeliveryJob]) async throws {
        try await withCheckedThrowingContinuation { written in
            waiting.append((jobs, written))
            guard !isWriting else { return }
            isWriting = true
            Task { await writeWaiting() }
        }
    }

    /// Writes what waits, a transaction for all of it, until nothing does.
    private func writeWaiting() async {
        while !waiting.isEmpty {
            let group = waiting
            waiting = []
            do {
                broadcaster.notify(try await events.appendRichEvents(for: group.flatMap(\.jobs), now: .now))
                for member in group { member.written.resume() }
            } catch {
                for member in group { member.written.resume(throwing: error) }
            }
        }
        isWriting = false
    }
}
