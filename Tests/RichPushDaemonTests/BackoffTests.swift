import Testing

@testable import RichPushDaemon

@Suite("Reconnection backoff and the heartbeat watchdog")
struct BackoffTests {
    /// SplitMix64: a small seeded generator, so each simulated daemon draws its own reproducible jitter.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    @Test func theCeilingDoublesPerFailedAttemptUpToTheMaximum() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
        var ceilings: [Duration] = []
        for _ in 0..<9 {
            ceilings.append(backoff.ceiling)
            _ = backoff.nextDelay()
        }
        #expect(ceilings == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }

    @Test func everyDelayLiesBetweenHalfTheCeilingAndTheCeiling() {
        var backoff = Backoff(initial: .seconds(2), maximum: .seconds(30))
        for _ in 0..<200 {
            let ceiling = backoff.ceiling
            let delay = backoff.nextDelay()
            #expect(delay >= ceiling / 2 && delay <= ceiling)
        }
    }

    @Test func jitterSpreadsDaemonsThatLostTheGatewayTogether() {
        let delays = (1...50).map { seed in
            var generator = SeededGenerator(state: UInt64(seed))
            var backoff = Backoff(initial: .seconds(4), maximum: .seconds(60))
            return backoff.nextDelay(using: &generator)
        }
        #expect(delays.allSatisfy { $0 >= .seconds(2) && $0 <= .seconds(4) })
        #expect(Set(delays).count > 40)
        #expect(delays.contains { $0 < .seconds(2.5) } && delays.contains { $0 > .seconds(3.5) })
    }

    @Test func aHealthyConnectionStartsTheBackoffOver() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
        for _ in 0..<5 { _ = backoff.nextDelay() }
        #expect(backoff.ceiling == .seconds(32))
        backoff.reset()
        #expect(backoff.attempts == 0)
        #expect(backoff.nextDelay() <= .seconds(1))
    }

    @Test func aStreamSilentForLongerThanTheTimeoutIsDead() {
        let start = ContinuousClock.now
        var liveness = Liveness(timeout: .seconds(45), now: start)
        #expect(!liveness.isDead(at: start + .seconds(44)))
        #expect(liveness.isDead(at: start + .seconds(46)))
        liveness.noteActivity(at: start + .seconds(40))
        #expect(!liveness.isDead(at: start + .seconds(80)))
        #expect(liveness.silence(at: start + .seconds(80)) == .seconds(40))
    }
}
