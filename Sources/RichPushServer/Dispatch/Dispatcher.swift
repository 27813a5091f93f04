import Foundation
import Logging
import RichPushCore
import RichPushHubs
import RichPushStore
import ServiceLifecycle
import Tracing

/// Works a queue of pushes (the outbox, or the fallbacks): claims due deliveries, hands them to the hub of their
/// platform and records each outcome.
///
/// On graceful shutdown it finishes the batches in hand and stops; a crash leaves claimed rows that fall due again when
/// their lease runs out (or at the next start, on an exclusive store).
struct Dispatcher: Service {
    struct Policy: Sendable {
        /// Each claim is one transaction on the store's single writer, which a fan-out waits on: a larger batch spreads
        /// its fixed cost (commit, statements prepared, the notification read) over more pushes.
        var batchSize = ServeSettings.dispatchBatchSize.defaultValue
        /// Batches on their way to the hubs at once: the next one is claimed while the last is still being sent. A
        /// batch is back only when its last push is answered, so a hub a round trip of 40 ms away holds each one that
        /// long and more: four batches of 1,000 held a process to 23,000-27,000 pushes a second there, sixteen to
        /// 38,000-47,000 (Benchmarks/hub-round-trip.sh, docs/performance-log.md).
        var batchesInFlight = ServeSettings.dispatchBatchesInFlight.defaultValue
        var lease: TimeInterval = 60
        /// The longest an idle dispatcher sleeps before looking for scheduled work.
        var idleInterval: Duration = .seconds(1)
        /// The longest that answered pushes wait to be recorded while their batch is still out.
        var recordWindow: Duration = .milliseconds(250)
        var maximumAttempts = 8
        var firstRetryDelay: TimeInterval = 2
        var longestRetryDelay: TimeInterval = 600
        /// How long hubs keep the push of a notification without `expiresAt` for an offline device (`--default-ttl`).
        var defaultLifetime: TimeInterval = 28 * 86_400
        /// What holds marketers' notifications back when they fall due (`--frequency-cap`, `--quiet-hours`).
        var campaignLimits = CampaignLimits()
    }

    let outbox: any DeliveryQueue
    /// The registrations to bring in step with a remote hub before each claim; nil for a dispatcher that leaves that
    /// to another (the fallbacks' beside the outbox's).
    let mirrorQueue: (any MirrorQueue)?
    let hubs: HubRegistry
    let circuits: HubCircuits
    let doorbell: Doorbell
    let policy: Policy
    let clock: any WallClock
    /// Set when the gateway knows its public URL: alerts of image notifications then link their image.
    var imageLinks: AlertImageLinks?
    /// Holds image campaigns back while payloads go out at `--payload-egress-limit`; nil without one.
    var egressLimit: EgressLimit?
    /// Returns once what a claim decides on is written: the fallbacks' claim reads payload fetches, which are written
    /// in batches after they are answered.
    var settle: @Sendable () async -> Void = {}
    let logger: Logger
    /// The metric its recorded outcomes count in.
    var counted = GatewayMetrics.Pushes.deliveries

    /// Dispatches until shut down or cancelled.
    func run() async throws {
        let answered = AnsweredDeliveries(window: policy.recordWindow)
        await doorbell.runUntilStopped {
            await withDiscardingTaskGroup { group in
                group.addTask { await recordAnswers(answered) }
                await dispatch(answered)
                // Every batch is back: what no claim carried is recorded by the recorder's last round.
                answered.departures.close()
            }
        }
    }

    /// Claims and sends until shut down, with up to `batchesInFlight` batches out at once; where outcomes ride claims,
    /// each claim also records those answered since the last.
    private func dispatch(_ answered: AnsweredDeliveries) async {
        await withTaskGroup(of: Void.self) { sending in
            var inFlight = 0
            while !doorbell.isClosed {
                var recording: [SentDelivery] = []
                if outcomesRideClaims {
                    recording = answered.take()
                } else {
                    // Claims never run far ahead of the records beside them: what is answered and unrecorded is what
                    // a crash sends again, and it is kept in memory until then.
                    while answered.unrecorded > policy.batchSize * policy.batchesInFlight * 2, !doorbell.isClosed {
                        await answered.records.wait(upTo: policy.idleInterval)
                    }
                }
                do {
                    let (jobs, mirrored) = try await claimBatch(recording: recording)
                    recording = []
                    if jobs.isEmpty {
                        if mirrored > 0 { continue }
                        // Nothing more to claim: let a batch in flight finish (it may have scheduled retries)
                        // before sleeping.
                        if inFlight > 0 {
                            await sending.next()
                            inFlight -= 1
                        } else {
                            await doorbell.wait(upTo: try await idleWait())
                        }
                        continue
                    }
                    sending.addTask { await send(jobs, answered: answered) }
                    inFlight += 1
                    if inFlight == policy.batchesInFlight {
                        await sending.next()
                        inFlight -= 1
                    }
                } catch {
                    answered.giveBack(recording)
                    logger.error("dispatch failed", metadata: ["error": "\(error)", "richpush.deliveries": "\(recording.count)"])
                    await doorbell.wait(upTo: policy.idleInterval)
                }
            }
            // Shutting down: the batches in hand finish; nothing more is claimed.
        }
    }

    /// Whether each claim records the outcomes answered since the last, in its own transaction.
    ///
    /// An exclusive store (SQLite) writes one transaction at a time: a claim that carries them commits once for both.
    /// A shared one (PostgreSQL) runs transactions side by side, so the outcomes are recorded beside the next claim
    /// instead of inside it: carried, they had made each claim of 1,000 take 21 ms, and a fan-out's pushes waited on
    /// its claims, not on the hubs.
    private var outcomesRideClaims: Bool { !outbox.isShared }

    /// While batches are out, records every window (and, where claims do not carry them, as each batch goes out and
    /// as the last one out comes back) what the hubs answered and no claim carried; sleeps while none is; records the
    /// last of them when the dispatcher is done.
    private func recordAnswers(_ answered: AnsweredDeliveries) async {
        // On a fixed beat, so the time a record takes does not stretch the window.
        var beat = ContinuousClock.now
        while !answered.departures.isClosed {
            if answered.isIdle {
                await answered.departures.wait(upTo: .seconds(3600))
                beat = .now
            } else {
                beat = max(beat + answered.window, .now)
                if outcomesRideClaims {
                    try? await Task.sleep(until: beat)
                } else if await answered.departures.wait(upTo: beat - ContinuousClock.now) {
                    beat = .now
                }
            }
            await record(answered)
        }
        await record(answered)
    }

    /// Records `finished` (outcomes of earlier batches) and brings the remote hub's registrations in step (so a new
    /// device is there before a push to it), then claims one batch, whose transaction also releases the scheduled
    /// notifications now due into their feeds; also says how many registrations it brought in step.
    func claimBatch(recording finished: [SentDelivery] = []) async throws -> (jobs: [DeliveryJob], mirrored: Int) {
        let mirrored = try await syncMirror()
        await settle()
        var limits = policy.campaignLimits
        if let egressLimit { limits.heldBack = await egressLimit.heldBack() }
        let started = DefaultTracerClock.now
        let batch = try await outbox.claimDue(recording: finished, now: clock.now, limit: policy.batchSize, lease: policy.lease, limits: limits)
        // An idle dispatcher looks every second: a claim that took and recorded nothing is no step of any path.
        if GatewayTracing.isOn, !batch.deliveries.isEmpty || !finished.isEmpty {
            let span = startSpan(counted.claimSpan, context: .topLevel, at: started)
            span.attributes["richpush.deliveries"] = batch.deliveries.count
            span.attributes["richpush.deliveries.recorded"] = finished.count
            span.attributes["richpush.notification.ids"] = GatewayTracing.notifications(
                batch.deliveries.map(\.notificationId) + finished.map(\.job.notificationId))
            span.end()
        }
        egressLimit?.noteClaimed(batch.notifications)
        count(finished)
        return (PushComposer.jobs(of: batch), mirrored)
    }

    /// Hands a claimed batch to the hubs of its platforms and gives every outcome to `answered` (most of them as the
    /// hubs answer) to be recorded. A batch whose outcomes are never recorded (the process ends) is sent again once its
    /// lease runs out.
    func send(_ jobs: [DeliveryJob], answered: AnsweredDeliveries) async {
        // Batches in flight share the hubs, so one may outlast the lease it was claimed with: renew it until it is
        // back, or another process would claim and send it again.
        let renewal = Task {
            while true {
                try await Task.sleep(for: .seconds(policy.lease / 3))
                // A store that does not answer for a moment ends no renewal: the batch is still out.
                try? await outbox.extendLease(of: jobs, by: policy.lease, now: clock.now)
            }
        }
        defer { renewal.cancel() }
        let now = clock.now
        let kept = jobs.map { $0.keptFor(policy.defaultLifetime, from: now) }
        let batch = answered.sending(jobs)
        let outcomes = await withSpan("hub.deliver", context: .topLevel, ofKind: .client) { span in
            span.attributes["richpush.deliveries"] = jobs.count
            span.attributes["richpush.hubs"] = Set(jobs.map(\.platform.rawValue)).sorted()
            span.attributes["richpush.notification.ids"] = GatewayTracing.notifications(jobs.map(\.notificationId))
            let outcomes = await Self.deliver(
                imageLinks?.adding(to: kept, audiencePlatforms: hubs.audiencePlatforms, now: now) ?? kept, hubs: hubs, circuits: circuits,
                policy: policy, clock: clock, logger: logger, told: batch.told)
            span.attributes["richpush.deliveries.sent"] = outcomes.count { $0 == .sent }
            return outcomes
        }
        answered.back(batch, outcomes)
    }

    /// Hands `jobs` to the hubs of their platforms at once and answers each job's outcome, in the order of `jobs`,
    /// the retry policy applied as of the time each hub answered; `told` hears of the outcomes a hub tells before its
    /// batch is back, with the job's position in `jobs`. A hub whose circuit is open is not handed the jobs it holds
    /// back: they are postponed at once.
    static func deliver(
        _ jobs: [DeliveryJob], hubs: HubRegistry, circuits: HubCircuits, policy: Policy, clock: any WallClock, logger: Logger,
        told: @escaping @Sendable (Int, DeliveryOutcome) -> Void = { _, _ in }
    ) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome?](repeating: nil, count: jobs.count)
        await withTaskGroup(of: [(Int, DeliveryOutcome)].self) { group in
            for (platform, positions) in Dictionary(grouping: jobs.indices, by: { jobs[$0].platform }) {
                let hub = hubs.hubs[platform] ?? UnconfiguredHub(platform: platform)
                let platformJobs = positions.map { jobs[$0] }
                let keys = platformJobs.map(hub.circuit(of:))
                // An audience hub sends a notification once to all its devices: its deliveries go or wait together.
                let units =
                    hubs.audiencePlatforms.contains(platform)
                    ? Dictionary(grouping: platformJobs.indices, by: { platformJobs[$0].notificationId }).values.sorted { $0[0] < $1[0] }
                    : platformJobs.indices.map { [$0] }
                let admission = circuits.admit(units, circuit: { keys[$0] }, now: clock.now)
                for (index, outcome) in admission.held {
                    outcomes[positions[index]] = outcome
                    told(positions[index], outcome)
                }
                guard !admission.sent.isEmpty else { continue }
                let sent = admission.sent
                @Sendable func settled(_ index: Int, _ outcome: DeliveryOutcome) -> DeliveryOutcome {
                    guard case .retry = outcome else { return outcome }
                    return policy.applyRetry(to: outcome, of: platformJobs[index], now: clock.now)
                }
                let progress = DeliveryProgress { position, outcome in
                    // A failed probe is postponed once the batch is back, as its circuit opens again.
                    if case .retry = outcome, admission.probes.contains(sent[position]) { return }
                    told(positions[sent[position]], settled(sent[position], outcome))
                }
                group.addTask {
                    let answered = await hub.deliver(sent.map { platformJobs[$0] }, logger: logger, progress: progress)
                    let postponed = circuits.observe(
                        answered.enumerated().map { position, outcome in (sent[position], keys[sent[position]], outcome) },
                        probes: admission.probes, now: clock.now)
                    return answered.enumerated().map { position, outcome in
                        (positions[sent[position]], postponed[sent[position]] ?? settled(sent[position], outcome))
                    }
                }
            }
            for await partial in group {
                for (position, outcome) in partial { outcomes[position] = outcome }
            }
        }
        return outcomes.map { $0! }
    }

    /// Records the outcomes no claim carried; those a failed transaction could not record go with the next claim.
    private func record(_ answered: AnsweredDeliveries) async {
        let finished = answered.takeForRecord()
        defer { answered.recordEnded(finished.count) }
        guard !finished.isEmpty else { return }
        do {
            try await withSpan(counted.recordSpan, context: .topLevel) { span in
                span.attributes["richpush.deliveries.recorded"] = finished.count
                span.attributes["richpush.notification.ids"] = GatewayTracing.notifications(finished.map(\.job.notificationId))
                try await outbox.recordOutcomes(finished, now: clock.now)
            }
            count(finished)
        } catch {
            answered.giveBack(finished)
            logger.error("recording outcomes failed", metadata: ["error": "\(error)", "richpush.deliveries": "\(finished.count)"])
        }
    }

    /// Counts recorded outcomes in `richpush_deliveries_total` (or the fallbacks').
    private func count(_ recorded: [SentDelivery]) {
        guard !recorded.isEmpty else { return }
        GatewayMetrics.outcomesRecorded(recorded.lazy.map { ($0.job.platform, $0.outcome) }, of: counted)
        logger.debug("dispatched", metadata: ["richpush.deliveries": "\(recorded.count)"])
    }

    private func idleWait() async throws -> Duration {
        let deliveryDue = try await outbox.nextDeliveryDue(now: clock.now)
        let mirrorDue = hubs.mirror == nil ? nil : try await mirrorQueue?.nextDue()
        guard let due = [deliveryDue, mirrorDue].compactMap({ $0 }).min() else { return policy.idleInterval }
        let wait = policy.idleWait(until: due, now: clock.now)
        // What is due may be held back: the egress is measured in tenths of a second.
        return egressLimit?.isHolding == true ? max(wait, .milliseconds(100)) : wait
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

extension DeliveryOutcome {
    var label: String {
        switch self {
        case .sent: "sent"
        case .retry: "retry"
        case .failed: "failed"
        case .deviceGone: "device_gone"
        case .postponed: "postponed"
        }
    }
}
