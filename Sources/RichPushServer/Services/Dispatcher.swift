import Foundation
import Logging
import Metrics
import RichPushCore
import RichPushHubs
import RichPushStore
import ServiceLifecycle

/// Works the outbox: claims due deliveries, hands them to the hub of their platform and records each outcome.
///
/// On graceful shutdown it finishes the batches in hand and stops; a crash leaves claimed rows that fall due again when
/// their lease runs out (or at the next start, on an exclusive store).
struct Dispatcher: Service {
    struct Policy: Sendable {
        /// Each claim is one transaction on the store's single writer, which a fan-out waits on: a larger batch spreads
        /// its fixed cost (commit, statements prepared, the notification read) over more pushes.
        var batchSize = 1000
        /// Batches on their way to the hubs at once: the next one is claimed while the last is still being sent.
        var batchesInFlight = 4
        var lease: TimeInterval = 60
        /// The longest an idle dispatcher sleeps before looking for scheduled work.
        var idleInterval: Duration = .seconds(1)
        var maximumAttempts = 8
        var firstRetryDelay: TimeInterval = 2
        var longestRetryDelay: TimeInterval = 600
        /// How long hubs keep the push of a notification without `expiresAt` for an offline device (`--default-ttl`).
        var defaultLifetime: TimeInterval = 28 * 86_400
    }

    let store: Store
    let hubs: HubRegistry
    let doorbell: Doorbell
    let policy: Policy
    let clock: any WallClock
    /// Set when the gateway knows its public URL: alerts of image notifications then link their image.
    var imageLinks: AlertImageLinks?
    let logger: Logger

    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: [SentDelivery].self) { sending in
                var inFlight = 0
                // Outcomes of batches back from the hubs, recorded by the next claim's transaction: one commit for both.
                var finished: [SentDelivery] = []
                while !doorbell.isClosed {
                    do {
                        let (jobs, mirrored) = try await claimBatch(recording: finished)
                        finished = []
                        if jobs.isEmpty {
                            if mirrored > 0 { continue }
                            // Nothing more to claim: let a batch in flight finish (it may have scheduled retries)
                            // before sleeping.
                            if inFlight > 0 {
                                finished = await sending.next() ?? []
                                inFlight -= 1
                            } else {
                                await doorbell.wait(upTo: try await idleWait())
                            }
                            continue
                        }
                        sending.addTask { await send(jobs) }
                        inFlight += 1
                        if inFlight == policy.batchesInFlight {
                            finished = await sending.next() ?? []
                            inFlight -= 1
                        }
                    } catch {
                        logger.error("dispatch failed", metadata: ["error": "\(error)", "richpush.deliveries": "\(finished.count)"])
                        await doorbell.wait(upTo: policy.idleInterval)
                    }
                }
                // Shutting down: the batches in hand finish and are recorded; nothing more is claimed.
                for await batch in sending { finished += batch }
                await record(finished)
            }
        } onGracefulShutdown: {
            doorbell.close()
        }
    }

    /// Records `finished` (outcomes of earlier batches) and brings the remote hub's registrations in step (so a new
    /// device is there before a push to it), then claims one batch, whose transaction also releases the scheduled
    /// notifications now due into their feeds; also says how many registrations it brought in step.
    func claimBatch(recording finished: [SentDelivery] = []) async throws -> (jobs: [DeliveryJob], mirrored: Int) {
        let mirrored = try await syncMirror()
        let jobs = try await store.claimDueDeliveries(
            recording: finished, now: clock.now, limit: policy.batchSize, lease: policy.lease, audiencePlatforms: hubs.audiencePlatforms)
        count(finished)
        return (jobs, mirrored)
    }

    /// Hands a claimed batch to the hubs of its platforms and answers every outcome, to be recorded with the next
    /// claim. A batch whose outcomes are never recorded (the process ends) is sent again once its lease runs out.
    func send(_ jobs: [DeliveryJob]) async -> [SentDelivery] {
        // Batches in flight share the hubs, so one may outlast the lease it was claimed with: renew it until it is
        // back, or another process would claim and send it again.
        let renewal = Task {
            while true {
                try await Task.sleep(for: .seconds(policy.lease / 3))
                try await store.extendLease(of: jobs.map(\.deliveryId), by: policy.lease)
            }
        }
        defer { renewal.cancel() }
        let now = clock.now
        let kept = jobs.map { $0.keptFor(policy.defaultLifetime, from: now) }
        return await Self.deliver(imageLinks?.adding(to: kept, now: now) ?? kept, hubs: hubs, policy: policy, clock: clock, logger: logger)
    }

    /// Hands `jobs` to the hubs of their platforms at once and answers each job with its outcome, the retry policy
    /// applied as of the time each hub answered.
    static func deliver(
        _ jobs: [DeliveryJob], hubs: HubRegistry, policy: Policy, clock: any WallClock, logger: Logger
    ) async -> [SentDelivery] {
        var results: [SentDelivery] = []
        await withTaskGroup(of: [SentDelivery].self) { group in
            for (platform, platformJobs) in Dictionary(grouping: jobs, by: \.platform) {
                let hub = hubs.hubs[platform] ?? UnconfiguredHub(platform: platform)
                group.addTask {
                    let outcomes = await hub.deliver(platformJobs, logger: logger)
                    let now = clock.now
                    return zip(platformJobs, outcomes).map { job, outcome in (job, policy.applyRetry(to: outcome, of: job, now: now)) }
                }
            }
            for await partial in group { results.append(contentsOf: partial) }
        }
        return results
    }

    /// Records the outcomes of the last batches when no claim follows to carry them.
    private func record(_ finished: [SentDelivery]) async {
        do {
            try await store.recordOutcomes(finished, now: clock.now)
            count(finished)
        } catch {
            logger.error("recording outcomes failed", metadata: ["error": "\(error)", "richpush.deliveries": "\(finished.count)"])
        }
    }

    /// Counts recorded outcomes in `richpush_deliveries_total`, each series once per batch.
    private func count(_ recorded: [SentDelivery]) {
        guard !recorded.isEmpty else { return }
        var tally: [DeliveryTallyKey: Int] = [:]
        for (job, outcome) in recorded { tally[DeliveryTallyKey(platform: job.platform, outcome: outcome.label), default: 0] += 1 }
        for (key, count) in tally {
            Counter(label: "richpush_deliveries_total", dimensions: [("platform", key.platform.rawValue), ("outcome", key.outcome)])
                .increment(by: count)
        }
        logger.debug("dispatched", metadata: ["richpush.deliveries": "\(recorded.count)"])
    }

    private func idleWait() async throws -> Duration {
        let deliveryDue = try await store.nextDeliveryDue()
        let mirrorDue = hubs.mirror == nil ? nil : try await store.nextMirrorTaskDue()
        guard let due = [deliveryDue, mirrorDue].compactMap({ $0 }).min() else { return policy.idleInterval }
        return policy.idleWait(until: due, now: clock.now)
    }
}

extension Dispatcher.Policy {
    /// How long an idle dispatcher sleeps when its next work falls due at `due`: until then, but never longer than the
    /// idle interval, so a due time the clock reached some other way (another process, a test) is found soon.
    func idleWait(until due: Date?, now: Date) -> Duration {
        guard let due else { return idleInterval }
        return min(idleInterval, .milliseconds(Int64(max(0.01, due.timeIntervalSince(now)) * 1000)))
    }

    /// A retry becomes a failure after the last attempt; otherwise it waits at least the hub's delay and at least an
    /// exponential backoff with jitter, but never past the notification's expiry, where it expires instead.
    func applyRetry(to outcome: DeliveryOutcome, of job: DeliveryJob, now: Date) -> DeliveryOutcome {
        guard case .retry(let after, let code, let message) = outcome else { return outcome }
        guard job.attempt < maximumAttempts else {
            return .failed(code: code, message: "\(message) (gave up after \(job.attempt) attempts)")
        }
        let backoff = min(longestRetryDelay, firstRetryDelay * pow(2, Double(job.attempt - 1)))
        var delay = max(after, backoff * Double.random(in: 0.8...1.2))
        if let expiresAt = job.expiresAt { delay = min(delay, max(0, expiresAt.timeIntervalSince(now))) }
        return .retry(after: delay, code: code, message: message)
    }
}

/// A delivery back from its hub, with what became of it.
typealias SentDelivery = (job: DeliveryJob, outcome: DeliveryOutcome)

/// One series of `richpush_deliveries_total`: a batch counts its outcomes first and touches each series once.
private struct DeliveryTallyKey: Hashable {
    var platform: Platform
    var outcome: String
}

extension DeliveryOutcome {
    var label: String {
        switch self {
        case .sent: "sent"
        case .retry: "retry"
        case .failed: "failed"
        case .deviceGone: "device_gone"
        }
    }
}
