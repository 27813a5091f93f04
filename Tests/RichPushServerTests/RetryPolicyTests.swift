import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

/// When a delivery a hub asked to retry goes again.
@Suite("The retry policy")
struct RetryPolicyTests {
    let policy = Dispatcher.Policy(maximumAttempts: 4, firstRetryDelay: 2, longestRetryDelay: 600)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func job(attempt: Int, expiresAt: Date? = nil) -> DeliveryJob {
        DeliveryJob(
            deliveryId: 1, attempt: attempt, notificationId: 1, push: SilentPush(richId: 1, richType: .text, richMessage: "m"),
            audience: "username:alice", expiresAt: expiresAt, installationId: "iphone", owner: "alice", platform: .apns,
            pushChannel: "00")
    }

    func delay(_ outcome: DeliveryOutcome) -> TimeInterval? {
        guard case .retry(let after, _, _) = outcome else { return nil }
        return after
    }

    @Test func aRetryWaitsAtLeastWhatTheHubAskedFor() {
        let outcome = policy.applyRetry(to: .retry(after: 120, code: "apns.tooManyRequests", message: "m"), of: job(attempt: 1), now: now)
        #expect(delay(outcome).map { $0 >= 120 } == true)
    }

    @Test func eachAttemptWaitsAboutTwiceAsLongAsTheLastWithinAFifthEitherWay() {
        let delays = (1...3).map { attempt in
            delay(policy.applyRetry(to: .retry(after: 0, code: "c", message: "m"), of: job(attempt: attempt), now: now))
        }
        #expect(zip(delays, [2.0, 4, 8]).allSatisfy { delay, base in delay.map { (base * 0.8...base * 1.2).contains($0) } == true })
    }

    @Test func aRetryNeverWaitsPastTheNotificationsExpiry() {
        let outcome = policy.applyRetry(to: .retry(after: 120, code: "c", message: "m"), of: job(attempt: 1, expiresAt: now + 30), now: now)
        #expect(delay(outcome) == 30)
    }

    @Test func theLastAttemptsRetryIsAFailureSayingSo() {
        let outcome = policy.applyRetry(to: .retry(after: 0, code: "wns.throttled", message: "WNS answered 406"), of: job(attempt: 4), now: now)
        #expect(outcome == .failed(code: "wns.throttled", message: "WNS answered 406 (gave up after 4 attempts)"))
    }
}
