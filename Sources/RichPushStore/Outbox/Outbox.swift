public import Foundation
public import RichPushCore

/// Pushes on their way to the hubs, claimed in batches under a lease and their outcomes recorded: the outbox of
/// notifications' deliveries, and the fallbacks of those whose payload was not fetched in time. A ``Dispatcher`` works
/// one of them.
public protocol DeliveryQueue: Sendable {
    /// Whether other gateway processes claim from this queue too, in transactions beside this one's.
    var isShared: Bool { get }
    /// Claims up to `limit` due pushes for `lease`, recording `finished` (outcomes of earlier claims) in the same
    /// transaction; `limits` hold marketers' notifications back where the queue applies them.
    func claimDue<Attempt: DeliveryAttempt>(
        recording finished: [(job: Attempt, outcome: DeliveryOutcome)], now: Date, limit: Int, lease: TimeInterval,
        limits: CampaignLimits
    ) async throws -> ClaimedBatch
    /// Records what the hubs answered.
    func recordOutcomes<Attempt: DeliveryAttempt>(_ results: [(job: Attempt, outcome: DeliveryOutcome)], now: Date) async throws
    /// When the next push that no lease holds falls due, so an idle dispatcher sleeps exactly that long.
    func nextDeliveryDue(now: Date) async throws -> Date?
    /// Keeps claimed pushes that are still being sent to their claimer for another `lease`.
    func extendLease<Attempt: DeliveryAttempt>(of jobs: [Attempt], by lease: TimeInterval, now: Date) async throws
}

/// The deliveries of every notification on their way to the hubs: claimed in batches under a lease, their outcomes recorded, written in chunks after their notification.
///
/// As a ``DeliveryQueue``: it is shared when other gateway processes claim from it too, in transactions beside this
/// one's (an outbox left unfinished may then be another process's work in progress). A claim releases the
/// notifications due by `now` into their feeds first, in the same transaction, so no push precedes its feed entry;
/// deliveries of expired notifications are marked expired, and those to installations a hub reported gone fail
/// without being sent. On the outbox's audience platforms (a hub that sends a notification once to its whole
/// audience), a claimed delivery brings every other unclaimed delivery of the same notification and platform along,
/// due or not, so the audience is never sent to twice. Several processes may claim at once on a shared store: rows
/// another claimer holds are skipped, never waited for (`FOR UPDATE SKIP LOCKED` where the dialect locks rows), and
/// deliveries of a notification that another process is still releasing wait for its release. There a claim reads on
/// from where this process's last claim ended (``ClaimCursor``), and rows freed behind that point are claimed within a
/// second. A campaign's first attempts are claimed there by ranges of its sequence
/// (``SQLOutbox/claimSequences(upTo:audiencePlatforms:withZones:in:)``), after what the pending index has due:
/// retries and deliveries of lapsed claims are not held up by a campaign being sent. `limits` hold marketers'
/// notifications back (frequency cap, quiet hours), in the claim's transaction; the outcomes a claim records are
/// committed with it, so a dispatcher that records one batch as it claims the next commits once for both.
///
/// A retry makes the delivery due again after its delay; a gone device fails and its installation is never sent to
/// again until it registers anew. The next delivery due is the next pending one no lease in its row holds: a leased
/// delivery is being sent, or was sent and its outcome is about to be recorded (counting it as due had an idle
/// dispatcher claim nothing every 10 ms until then); one whose lease runs out is found within the idle interval,
/// which bounds every wait, and a notification's sequence is due while deliveries of it remain to be claimed, or a
/// claim of them ran out of lease. An extended lease keeps a batch that takes longer than its lease from being
/// claimed and sent a second time by another process.
public protocol Outbox: DeliveryQueue {
    /// Writes the rest of notification `id`'s outbox, a chunk per transaction, and calls `chunkWritten` after each
    /// commit; stops at once if the notification is canceled or recalled meanwhile. The chunks follow the installations'
    /// order, so a process that completes an outbox another began (``abandoned(stale:now:)``) writes each
    /// delivery once. A cancelled task stops between chunks with `CancellationError`, leaving the rest to whoever
    /// completes the outbox next. Once the outbox is whole, the planner's statistics of the outbox are refreshed: a
    /// campaign's results are often exported right after it.
    func complete(of id: Int64, now: Date, chunkWritten: @Sendable () -> Void) async throws
    /// Makes the failed deliveries of notification `id` pending again, due at once with their attempts counted from
    /// nothing, but for those to devices a hub reported gone; `audit` makes the trail's entry of how many. A second
    /// call while they are pending finds none to retry. A canceled, recalled or expired notification is not sent again.
    func retryFailed(of id: Int64, audit: @escaping @Sendable (Int) -> AuditEntry?, now: Date) async throws -> RetryOutcome
    /// Notifications whose outbox was begun and not completed, untouched for `stale` (their writer died): each claimed
    /// for this process, so one process completes it.
    func abandoned(stale: TimeInterval, now: Date) async throws -> [Int64]
}
