import Foundation
import Logging
import RichPushCore
import Testing

@testable import RichPushServer

/// How a hub that fails holds its deliveries back, and lets them go once it answers again.
@Suite("The hubs' circuit breakers")
struct HubCircuitTests {
    let circuits = HubCircuits(policy: .init(failuresToOpen: 3, firstOpening: 1, longestOpening: 8, probeWait: 1), logger: Logger(label: "test"))
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let unreachable = DeliveryOutcome.retry(after: 0, code: "apns.unreachable", message: "apns could not be reached: connection refused")

    /// Sends `count` pushes to `circuit` at `now` and answers each sent one with `outcome`; says which were sent.
    @discardableResult
    func send(_ count: Int, to circuit: String? = "apns", answering outcome: DeliveryOutcome, at now: Date) -> HubCircuits.Admission {
        let admission = circuits.admit((0..<count).map { [$0] }, circuit: { _ in circuit }, now: now)
        circuits.observe(admission.sent.map { ($0, circuit, outcome) }, probes: admission.probes, now: now)
        return admission
    }

    func postponement(_ outcome: DeliveryOutcome) -> (after: TimeInterval, code: String)? {
        guard case .postponed(let after, let code, _) = outcome else { return nil }
        return (after, code)
    }

    @Test func aHubThatFailsFewerTimesInARowThanTheThresholdIsStillSentTo() {
        send(2, answering: unreachable, at: start)
        #expect(send(4, answering: .sent, at: start).sent.count == 4)
    }

    @Test func afterTheThresholdOfFailuresTheHubsPushesAreHeldBackWithItsLastFailureAsTheReason() {
        send(3, answering: unreachable, at: start)
        let admission = send(50, answering: .sent, at: start + 0.5)
        #expect(admission.sent.isEmpty)
        #expect(admission.held.count == 50)
        let held = postponement(admission.held[0].outcome)
        #expect(held?.code == "apns.unreachable")
        #expect(held.map { abs($0.after - 0.5) < 0.001 } == true, "held until the circuit may be tried again")
    }

    @Test func anAnswerOtherThanARetryEndsARunOfFailures() {
        send(2, answering: unreachable, at: start)
        send(1, answering: .deviceGone(code: "apns.unregistered", message: "410"), at: start)
        send(2, answering: unreachable, at: start)
        #expect(send(10, answering: .sent, at: start).sent.count == 10)
    }

    @Test func onceTheOpeningHasPassedOnePushGoesAloneAsAProbeWhileTheRestWait() {
        send(3, answering: unreachable, at: start)
        let admission = circuits.admit((0..<10).map { [$0] }, circuit: { _ in "apns" }, now: start + 1)
        #expect(admission.sent == [0])
        #expect(admission.probes == [0])
        #expect(admission.held.map(\.index) == Array(1..<10))
        #expect(postponement(admission.held[0].outcome)?.after == 1)
        let meanwhile = circuits.admit([[0]], circuit: { _ in "apns" }, now: start + 1.5)
        #expect(meanwhile.sent.isEmpty, "a second probe went while the first was out")
    }

    @Test func anAnswerToAPushSentBeforeTheCircuitOpenedDoesNotCloseIt() {
        send(3, answering: unreachable, at: start)
        circuits.observe([(7, "apns", .sent)], probes: [], now: start + 0.1)
        #expect(send(10, answering: .sent, at: start + 0.2).sent.isEmpty)
    }

    @Test func aProbeThatIsAnsweredClosesTheCircuitAndEverythingGoesAtOnce() {
        send(3, answering: unreachable, at: start)
        send(10, answering: .sent, at: start + 1)
        #expect(send(1000, answering: .sent, at: start + 1).sent.count == 1000)
    }

    @Test func aFailedProbeIsPostponedSoProbingADownHubUsesUpNoDeliverysAttempts() {
        send(3, answering: unreachable, at: start)
        let admission = circuits.admit([[0]], circuit: { _ in "apns" }, now: start + 1)
        let postponed = circuits.observe([(0, "apns", unreachable)], probes: admission.probes, now: start + 1)
        #expect(postponement(postponed[0]!)?.after == 2)
        #expect(postponement(postponed[0]!)?.code == "apns.unreachable")
    }

    @Test func eachFailedProbeKeepsTheCircuitOpenTwiceAsLongUpToTheLongest() {
        send(3, answering: unreachable, at: start)
        var now = start + 1
        var openings: [TimeInterval] = []
        for _ in 0..<5 {
            send(1, answering: unreachable, at: now)
            let held = postponement(circuits.admit([[0]], circuit: { _ in "apns" }, now: now).held[0].outcome)!.after
            openings.append(held)
            now += held
        }
        #expect(openings == [2, 4, 8, 8, 8])
    }

    @Test func aHubsRetryAfterKeepsItsCircuitOpenAtLeastThatLong() {
        send(3, answering: .retry(after: 30, code: "apns.tooManyRequests", message: "429"), at: start)
        let held = circuits.admit([[0]], circuit: { _ in "apns" }, now: start + 10).held
        #expect(held.first.flatMap { postponement($0.outcome) }?.after == 20)
    }

    @Test func aFailingPushServiceHoldsBackOnlyItsOwnDeliveries() {
        send(3, to: "webpush:updates.push.services.mozilla.com", answering: unreachable, at: start)
        #expect(send(5, to: "webpush:fcm.googleapis.com", answering: .sent, at: start).sent.count == 5)
        #expect(send(5, to: "webpush:updates.push.services.mozilla.com", answering: .sent, at: start).sent.isEmpty)
    }

    @Test func aPushNoCircuitGuardsIsAlwaysSent() {
        send(10, to: nil, answering: unreachable, at: start)
        #expect(send(10, to: nil, answering: .sent, at: start).sent.count == 10)
    }

    @Test func anAudienceSendGoesOrWaitsWhole() {
        send(3, to: "anh", answering: unreachable, at: start)
        let probed = circuits.admit([[0, 1, 2], [3, 4]], circuit: { _ in "anh" }, now: start + 1)
        #expect(probed.sent == [0, 1, 2])
        #expect(probed.held.map(\.index) == [3, 4])
    }
}
