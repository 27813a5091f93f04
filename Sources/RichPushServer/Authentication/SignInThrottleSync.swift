import Foundation
import Logging
import RichPushStore
import ServiceLifecycle

/// On a store shared by several gateway processes: keeps this process's login throttle in step with the failures
/// that every process records in the store, so a username or address blocked on one is blocked on all within a
/// second, and unblocked on all when the right password clears it.
///
/// Checking a sign-in stays a lookup in memory; only failures and this once-a-second read touch the store.
struct SignInThrottleSync: Service {
    let signInFailures: any SignInFailureRepository
    let throttle: LoginThrottle
    let logger: Logger
    var interval: Duration = .seconds(1)
    /// Failures older than the throttle's window are removed from the store this often.
    var pruneEvery = 60

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var ticks = 0
            while !Task.isCancelled {
                do {
                    let now = Date.now
                    throttle.adoptThrottled(
                        try await signInFailures.throttledKeys(since: now - throttle.window, limit: throttle.smallestLimit), now: now)
                    if ticks % pruneEvery == 0 { try await signInFailures.prune(before: now - throttle.window) }
                } catch  where !Task.isCancelled {
                    logger.warning("could not read the shared sign-in failures", metadata: ["error": "\(error)"])
                } catch {
                    return
                }
                ticks += 1
                try? await Task.sleep(for: interval)
            }
        }
    }
}
