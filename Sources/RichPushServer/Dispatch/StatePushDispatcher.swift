import Foundation
import Logging
import RichPushCore
import RichPushHubs
import RichPushStore
import ServiceLifecycle

/// Works the outbox of state pushes: claims the due ones, hands them to the hubs of their devices and records each
/// outcome at once. They are few and small beside a campaign's fan-out, so one batch at a time is enough; a crash
/// leaves claims that fall due again when their lease runs out (or at the next start, on an exclusive store).
struct StatePushDispatcher: Service {
    let statePushes: any StatePushQueue
    let hubs: HubRegistry
    let circuits: HubCircuits
    let doorbell: Doorbell
    let policy: Dispatcher.Policy
    let clock: any WallClock
    let logger: Logger

    static let batchSize = 500

    /// Sends until shut down or cancelled.
    func run() async throws {
        await doorbell.runUntilStopped {
            while !doorbell.isClosed {
                do {
                    let claims = try await statePushes.claimDue(limit: Self.batchSize, lease: policy.lease, now: clock.now)
                    guard !claims.isEmpty else {
                        await doorbell.wait(upTo: try await idleWait())
                        continue
                    }
                    let outcomes = await Dispatcher.deliver(
                        claims.map(\.job), hubs: hubs, circuits: circuits, policy: policy, clock: clock, logger: logger)
                    try await statePushes.recordOutcomes(Array(zip(claims, outcomes)), now: clock.now)
                } catch {
                    logger.error("state pushes failed", metadata: ["error": "\(error)"])
                    await doorbell.wait(upTo: policy.idleInterval)
                }
            }
        }
    }

    private func idleWait() async throws -> Duration {
        policy.idleWait(until: try await statePushes.nextDue(), now: clock.now)
    }
}
