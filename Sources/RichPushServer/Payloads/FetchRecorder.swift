import Foundation
import Logging
import RichPushCore
import RichPushStore
import Synchronization

/// Records recipients' first payload fetches in batches, off the fetch's path.
///
/// A fetch is answered at once; the fetches that arrive while one batch is being written go together into the next
/// transaction, so a campaign's burst of first fetches costs one commit (one fsync) per batch instead of one each.
/// What a crash can lose is the last batch of "fetched" counts, never a notification or a delivery.
final class FetchRecorder: Sendable {
    private struct State {
        var pending: [PayloadFetch] = []
        /// Writes batches while there are any; nil when idle.
        var writer: Task<Void, Never>?
    }

    private let feeds: any FeedRepository
    private let logger: Logger
    private let state = Mutex(State())

    init(feeds: any FeedRepository, logger: Logger) {
        self.feeds = feeds
        self.logger = logger
    }

    /// Queues a first fetch for the next batch.
    func record(_ fetch: PayloadFetch) {
        state.withLock { state in
            state.pending.append(fetch)
            if state.writer == nil {
                state.writer = Task { await self.writeBatches() }
            }
        }
    }

    /// Returns once every fetch recorded before the call is written (or failed to be), so a status read after it
    /// counts them.
    func flushed() async {
        await state.withLock { $0.writer }?.value
    }

    private func writeBatches() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.pending
                state.pending.removeAll(keepingCapacity: true)
                if batch.isEmpty { state.writer = nil }
                return batch
            }
            if batch.isEmpty { return }
            do {
                try await feeds.recordFetches(batch, now: .now)
            } catch {
                logger.warning(
                    "payload fetches not recorded", metadata: ["richpush.count": "\(batch.count)", "richpush.error": "\(error)"])
            }
        }
    }
}
