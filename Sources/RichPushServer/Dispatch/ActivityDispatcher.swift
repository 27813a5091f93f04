import Foundation
import Logging
import RichPushCore
import RichPushHubs
import RichPushStore
import ServiceLifecycle

/// Works the Live Activities' pushes: claims the due ones (each with the token its event goes to), sends them to APNs
/// and records each outcome with the next claim. A device gets one push at a time, the latest state when it goes; a
/// crash leaves claims that fall due again when their lease runs out.
struct ActivityDispatcher: Service {
    let activities: any ActivityRepository
    let hubs: HubRegistry
    let doorbell: Doorbell
    let policy: Dispatcher.Policy
    let clock: any WallClock
    let logger: Logger

    static let batchSize = 500
    /// Longer than a batch can take (three tries of 30 s each on a hub that does not answer), so that on a shared store
    /// no other process takes a push this one is still sending; a crash leaves its pushes this long.
    static let lease: TimeInterval = 300

    /// Sends until shut down or cancelled.
    func run() async throws {
        await doorbell.runUntilStopped {
            var finished: [(job: ActivityJob, outcome: DeliveryOutcome)] = []
            while !doorbell.isClosed {
                do {
                    let jobs = try await activities.claimDue(
                        recording: finished, limit: Self.batchSize, lease: Self.lease, now: clock.now)
                    GatewayMetrics.outcomesRecorded(finished.lazy.map { (Platform.apns, $0.outcome) }, of: .liveActivities)
                    finished = []
                    guard !jobs.isEmpty else {
                        await doorbell.wait(upTo: policy.idleWait(until: try await activities.nextDue(now: clock.now), now: clock.now))
                        continue
                    }
                    let outcomes = await deliver(jobs)
                    finished = Array(zip(jobs, outcomes))
                } catch {
                    logger.error("live activity pushes failed", metadata: ["error": "\(error)"])
                    await doorbell.wait(upTo: policy.idleInterval)
                }
            }
            if !finished.isEmpty { _ = try? await activities.claimDue(recording: finished, limit: 0, lease: 0, now: clock.now) }
        }
    }

    /// Live Activities exist on iOS only, through APNs itself: Notification Hubs has no such push type.
    private func deliver(_ jobs: [ActivityJob]) async -> [DeliveryOutcome] {
        guard let apns = hubs.hubs[.apns] as? APNsHub else {
            return jobs.map { _ in .failed(code: "activity.apnsNotConfigured", message: "Live Activities go through APNs, which is not configured") }
        }
        return await apns.deliverLiveActivities(jobs, logger: logger)
    }
}
