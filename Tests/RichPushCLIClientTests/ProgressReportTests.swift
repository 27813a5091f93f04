import RichPushCore
import Testing

@testable import RichPushCLIClient

@Suite("Showing delivery progress")
struct ProgressReportTests {
    func status(_ state: NotificationState, targeted: Int, sent: Int, failed: Int = 0, pending: Int = 0, errors: [StatusJSON.DeliveryErrorJSON] = [])
        -> StatusJSON
    {
        StatusJSON(
            id: 42, state: state, targeted: targeted, sent: sent, failed: failed, pending: pending, expired: 0, canceled: 0, capped: 0, fetched: 2,
            displayed: 1, opened: 0, dismissed: 0, errors: errors)
    }

    @Test func withoutATerminalEachChangeIsOnePlainLine() {
        let report = ProgressReport(isInteractive: false)
        #expect(
            report.update(status(.sending, targeted: 4, sent: 1, pending: 3))
                == "notification 42 sending: 1 of 4 sent, 0 failed, 3 pending; 2 fetched, 1 displayed, 0 opened, 0 dismissed\n")
    }

    @Test func onATerminalTheBarIsRedrawnInPlaceAndFillsWithSentDeliveries() {
        let text = ProgressReport(isInteractive: true, width: 100).update(status(.sending, targeted: 4, sent: 2, pending: 2))
        #expect(text.hasPrefix("\r\u{1B}[2K"))
        #expect(!text.contains("\n"))
        #expect(text.contains("[" + String(repeating: "█", count: 15) + String(repeating: "░", count: 15) + "]"))
        #expect(text.contains("2/4 · 2 fetched, 1 displayed"))
    }

    @Test func failedDeliveriesShowApartInTheBar() {
        let text = ProgressReport(isInteractive: true, width: 100).update(status(.sending, targeted: 2, sent: 1, failed: 1))
        #expect(text.contains("[" + String(repeating: "█", count: 15) + String(repeating: "╳", count: 15) + "]"))
    }

    @Test func aNarrowTerminalGetsNoBarButNeverAWrappedLine() {
        let text = ProgressReport(isInteractive: true, width: 40).update(status(.sending, targeted: 4, sent: 2, pending: 2))
        let line = text.dropFirst("\r\u{1B}[2K".count)
        #expect(!line.contains("█") && !line.contains("░"))
        #expect(line.count < 40)
    }

    @Test func theReachFollowsTheFunnelOnceAPushWentOut() {
        var sending = status(.sending, targeted: 4, sent: 3, pending: 1)
        sending.reach = Reach(fetchedWithin1m: 0, reached: 0, notReached: 3)
        #expect(ProgressReport.line(sending).hasSuffix("0 dismissed; reached 0 of 3"))
        sending.reach = Reach(fetchedWithin1m: 2, fetchedWithin10m: 2, fetchedWithin1h: 2, reached: 2, notReached: 1, fetchSecondsP50: 4.23)
        #expect(ProgressReport.line(sending).hasSuffix("0 dismissed; reached 2 of 3 (2 within 1 min, half within 4.2 s)"))
        sending.reach.fetchSecondsP50 = 340
        #expect(ProgressReport.line(sending).hasSuffix("half within 5m40s)"))
    }

    @Test func theSummaryListsEveryDeliveryError() {
        let failure = StatusJSON.DeliveryErrorJSON(
            installationId: "phone", platform: .apns, code: "hub.notConfigured", message: "no hub is configured for platform apns")
        let text = ProgressReport(isInteractive: false).finish(status(.partial, targeted: 2, sent: 1, failed: 1, errors: [failure]))
        #expect(
            text == """
                notification 42 partial: 1 of 2 sent, 1 failed; 2 fetched, 1 displayed, 0 opened, 0 dismissed
                  phone (apns): hub.notConfigured: no hub is configured for platform apns

                """)
    }

    @Test(arguments: [
        (NotificationState.delivered, CommandExit.success), (.partial, .partial), (.failed, .notDelivered), (.expired, .notDelivered),
        (.canceled, .notDelivered), (.scheduled, .pending), (.sending, .pending),
    ])
    func eachStateEndsTheCommandWithItsOwnStatus(state: NotificationState, exit: CommandExit) {
        #expect(CommandExit(state) == exit)
    }

    @Test func theExitStatusesAreDistinctAndUsageIsEXUsage() {
        #expect(Set(CommandExit.allCases.map(\.rawValue)).count == CommandExit.allCases.count)
        #expect(CommandExit.success.rawValue == 0)
        #expect(CommandExit.usage.rawValue == 64)
    }
}
