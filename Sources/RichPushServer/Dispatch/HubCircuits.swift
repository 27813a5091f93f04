import Foundation
import Logging
import RichPushCore
import Synchronization

/// A circuit breaker for each remote hub (and each push service of Web Push and WNS), so a hub that is down costs
/// no delivery and sees no storm of retries.
///
/// Without it every batch claimed for a hub that refused connections opened its own: a hub down for 20 s saw 2,300
/// attempts to connect, in waves of 300 to 470 a second. Here a push that comes back as a retry (the hub could not
/// be reached, or answered 429 or 5xx) is a failure of its circuit, and any other answer (sent, refused, device gone)
/// ends a run of failures. After ``Policy/failuresToOpen`` failures in a row the circuit opens: the deliveries to it are not sent
/// but postponed until it may be tried again, their attempts not counted, the hub's last failure their reason. Then
/// one push goes alone as a probe while the rest wait for its answer: an answer closes the circuit and every pending
/// delivery goes out at full pace, a failure opens it again for twice as long, up to ``Policy/longestOpening``. A hub's
/// `Retry-After` keeps its circuit open at least that long.
final class HubCircuits: Sendable {
    struct Policy: Sendable {
        var failuresToOpen = 5
        /// How long a circuit first stays open.
        var firstOpening: TimeInterval = 1
        /// The longest a circuit stays open between probes: also the longest the deliveries wait after the hub is back.
        var longestOpening: TimeInterval = 8
        /// How long the deliveries held back while a probe is out wait before they are claimed again.
        var probeWait: TimeInterval = 1
    }

    /// The pushes of a batch to one hub that go now, and the postponed outcomes of those held back.
    struct Admission {
        var sent: [Int] = []
        var held: [(index: Int, outcome: DeliveryOutcome)] = []
        /// The pushes sent as their circuit's probe.
        var probes: Set<Int> = []
    }

    private struct Circuit {
        var consecutiveFailures = 0
        /// Until when nothing is sent; nil while the circuit is closed.
        var openUntil: Date?
        var opening: TimeInterval = 0
        var probeOut = false
        var lastFailure = (code: "", message: "")
    }

    let policy: Policy
    private let logger: Logger
    private let circuits = Mutex<[String: Circuit]>([:])

    init(policy: Policy = Policy(), logger: Logger) {
        self.policy = policy
        self.logger = logger
    }

    /// Which of `units` (groups of job positions sent together: a device's push, or a whole audience's) go now, their
    /// circuits named by `circuit` (nil: none guards it).
    func admit(_ units: [[Int]], circuit: (Int) -> String?, now: Date) -> Admission {
        circuits.withLock { circuits in
            var admission = Admission()
            for unit in units {
                guard let first = unit.first, let key = circuit(first), var state = circuits[key], let openUntil = state.openUntil else {
                    admission.sent += unit
                    continue
                }
                let wait: TimeInterval
                if openUntil > now {
                    wait = openUntil.timeIntervalSince(now)
                } else if !state.probeOut {
                    state.probeOut = true
                    circuits[key] = state
                    admission.sent += unit
                    admission.probes.formUnion(unit)
                    continue
                } else {
                    wait = policy.probeWait
                }
                let outcome = Self.heldBack(by: key, state, for: wait)
                admission.held += unit.map { ($0, outcome) }
            }
            return admission
        }
    }

    /// Takes note of what the hub answered to each push sent (`index`, its circuit and outcome), `probes` among them;
    /// answers the outcomes of the probes that failed, postponed: a probe is the circuit's attempt, not its delivery's,
    /// which would otherwise use up its attempts probing a hub that is down.
    @discardableResult
    func observe(_ answers: [(index: Int, circuit: String?, outcome: DeliveryOutcome)], probes: Set<Int>, now: Date) -> [Int: DeliveryOutcome] {
        var opened: [(String, Circuit)] = []
        var closed: [String] = []
        var postponed: [Int: DeliveryOutcome] = [:]
        let result = circuits.withLock { circuits in
            for (index, key, outcome) in answers {
                guard let key else { continue }
                var state = circuits[key] ?? Circuit()
                let wasOpen = state.openUntil != nil
                switch outcome {
                case .retry(let after, let code, let message):
                    state.consecutiveFailures += 1
                    state.lastFailure = (code, message)
                    if probes.contains(index) {
                        state.probeOut = false
                        state.opening = min(policy.longestOpening, max(policy.firstOpening, state.opening * 2))
                        state.openUntil = now + max(state.opening, after)
                        postponed[index] = Self.heldBack(by: key, state, for: max(state.opening, after))
                    } else if !wasOpen && state.consecutiveFailures >= policy.failuresToOpen {
                        state.opening = policy.firstOpening
                        state.openUntil = now + max(state.opening, after)
                        opened.append((key, state))
                    } else if let openUntil = state.openUntil {
                        state.openUntil = max(openUntil, now + after)
                    }
                    circuits[key] = state
                case .postponed:
                    continue
                case .sent, .failed, .deviceGone:
                    // Once the circuit is open only its probe closes it: the answers of a batch come back in the
                    // batch's order, not their own, so an answer a push got before the hub failed may be read after
                    // the failures that opened the circuit.
                    if wasOpen && !probes.contains(index) { continue }
                    if wasOpen { closed.append(key) }
                    circuits[key] = nil
                }
            }
            return postponed
        }
        for (key, state) in opened {
            logger.warning(
                "hub failing: its deliveries are held back and probed with one push at a time",
                metadata: [
                    "richpush.hub": "\(key)", "richpush.failures": "\(state.consecutiveFailures)", "error": "\(state.lastFailure.message)",
                ])
        }
        for key in closed { logger.notice("hub answers again: its held-back deliveries go out", metadata: ["richpush.hub": "\(key)"]) }
        return result
    }

    /// The outcome of a delivery that `key`'s circuit, in `state`, holds back for `wait` seconds.
    private static func heldBack(by key: String, _ state: Circuit, for wait: TimeInterval) -> DeliveryOutcome {
        .postponed(
            after: wait, code: state.lastFailure.code,
            message:
                "held back while \(key) fails (\(state.consecutiveFailures) failures in a row, the last: \(state.lastFailure.message)); tried again within \(Int(wait.rounded(.up))) s"
        )
    }
}
