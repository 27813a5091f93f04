import Foundation
public import RichPushCore

/// How a followed notification is shown: a progress bar redrawn in place on a terminal, one plain line per change
/// otherwise (a log file, a CI job, a pipe).
public struct ProgressReport: Sendable {
    public let isInteractive: Bool
    public let width: Int

    public init(isInteractive: Bool, width: Int = 80) {
        self.isInteractive = isInteractive
        self.width = width
    }

    /// What to write when the status changed: on a terminal it redraws the current line.
    public func update(_ status: StatusJSON) -> String {
        guard isInteractive else { return Self.line(status) + "\n" }
        let counts = "\(status.settled)/\(status.targeted) · \(Self.funnel(status))"
        let label = status.state.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
        let room = width - label.count - counts.count - 5
        let bar = room >= 10 ? "[" + Self.bar(status, width: min(room, 30)) + "] " : ""
        let line = "\(label) \(bar)\(counts)"
        // Carriage return and erase-line keep the bar on one row, whatever was there before.
        return "\r\u{1B}[2K" + String(line.prefix(max(width - 1, 1)))
    }

    /// The closing lines once the state is final (or the wait ended): the summary, then each delivery error.
    public func finish(_ status: StatusJSON) -> String {
        var text = isInteractive ? "\r\u{1B}[2K" : ""
        text += Self.line(status) + "\n"
        for failure in status.errors {
            text += "  \(failure.installationId) (\(failure.platform)): \(failure.code): \(failure.message)\n"
        }
        return text
    }

    /// `notification 42 delivered: 3 of 3 sent, 0 failed; 2 fetched, 1 displayed, 0 opened, 0 dismissed; reached 2 of 3
    /// (2 within 1 min, half within 4.2 s)`
    public static func line(_ status: StatusJSON) -> String {
        var outcome = "\(status.sent) of \(status.targeted) sent, \(status.failed) failed"
        if status.pending > 0 { outcome += ", \(status.pending) pending" }
        if status.expired > 0 { outcome += ", \(status.expired) expired" }
        if status.canceled > 0 { outcome += ", \(status.canceled) canceled" }
        if status.capped > 0 { outcome += ", \(status.capped) capped" }
        return "notification \(status.id) \(status.state.rawValue): \(outcome); \(funnel(status))"
    }

    static func funnel(_ status: StatusJSON) -> String {
        let funnel = "\(status.fetched) fetched, \(status.displayed) displayed, \(status.opened) opened, \(status.dismissed) dismissed"
        return reach(status.reach).map { funnel + "; " + $0 } ?? funnel
    }

    /// How many of the devices sent to were reached, and how soon, once any was sent to; the wait prints it as it grows.
    static func reach(_ reach: Reach) -> String? {
        let sent = reach.reached + reach.notReached
        guard sent > 0 else { return nil }
        let reached = "reached \(reach.reached) of \(sent)"
        guard let median = reach.fetchSecondsP50 else { return reached }
        return reached + " (\(reach.fetchedWithin1m) within 1 min, half within \(seconds(median)))"
    }

    /// `0.4 s`, `12 s`, `5m40s`: a time to fetch, as short as it reads.
    static func seconds(_ value: Double) -> String {
        if value < 10 { return String(format: "%.1f s", value) }
        let whole = Int(value)
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return whole % 60 == 0 ? "\(whole / 60)m" : "\(whole / 60)m\(whole % 60)s" }
        return "\(whole / 3600)h\(whole % 3600 / 60)m"
    }

    /// Settled deliveries as full cells, failures marked apart so a partial send shows at a glance.
    static func bar(_ status: StatusJSON, width: Int) -> String {
        guard status.targeted > 0 else { return String(repeating: status.state.isFinal ? "█" : "░", count: width) }
        let good = status.sent * width / status.targeted
        let bad = min((status.settled - status.sent) * width / status.targeted, width - good)
        return String(repeating: "█", count: good) + String(repeating: "╳", count: bad) + String(repeating: "░", count: width - good - bad)
    }
}

extension StatusJSON {
    /// Deliveries the hubs have finished with, one way or another.
    var settled: Int { sent + failed + expired + canceled + capped }
}
