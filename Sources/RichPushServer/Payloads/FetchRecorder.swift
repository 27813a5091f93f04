import Foundation
import Logging
import RichPushCore
import RichPushStore

/// Records recipients' first payload fetches in batches, off the fetch's path.
///
/// A fetch is answered at once; the fetches that arrive while one batch is being written go together into the next
/// transaction, so a campaign's burst of first fetches costs one commit (one fsync) per batch instead of one each.
/// What a crash can lose is the last batch of "fetched" counts, never a notification or a delivery.
final class FetchRecorder: Sendable {
    private let writes: GroupCommit<PayloadFetch>

    init(feeds: any FeedRepository, logger: Logger) {
        writes = GroupCommit { batch in
            do {
                try await feeds.recordFetches(batch)
            } catch {
                logger.warning(
                    "payload fetches not recorded", metadata: ["richpush.count": "\(batch.count)", "richpush.error": "\(error)"])
            }
        }
    }

    /// Queues a first fetch for the next batch.
    func record(_ fetch: PayloadFetch) {
        writes.enqueue([fetch])
    }

    /// Returns once every fetch recorded before the call is written (or failed to be), so a status read after it
    /// counts them.
    func flushed() async {
        await writes.flushed()
    }
}
