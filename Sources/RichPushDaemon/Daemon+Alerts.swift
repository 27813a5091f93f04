import Logging
import RichPushCore

/// A notification that waits for room on the desktop: only its event, so a long wait holds no image.
struct WaitingAlert {
    var richId: Int64
    var richType: RichType
    var message: String
    var title: String?
    var actions: [DeviceAction] = []
    var interruptionLevel: InterruptionLevel?
    /// The stream position of its event; the saved cursor stays before it until it is sent.
    var cursor: Int64
}

extension Daemon {
    /// How many alerts may be on the bus unanswered. A notification server answers in order, so more in flight
    /// would not show them sooner; what waits beyond is an event, prepared (fetched, decoded) when its turn comes.
    static let unansweredLimit = 16

    /// Queues the alert of a notification not shown yet; it goes out from ``presentWaitingAlerts()``.
    func queueAlert(_ alert: WaitingAlert) {
        guard !state.hasShown(alert.richId), !waitingAlerts.contains(where: { $0.richId == alert.richId }) else {
            logger.debug("already shown", metadata: ["richpush.id": "\(alert.richId)"])
            return
        }
        waitingAlerts.append(alert)
    }

    /// Drops an alert still waiting (recalled, or acted on elsewhere); its event no longer holds the cursor back.
    func dropWaitingAlert(of richId: Int64) {
        waitingAlerts.removeAll { $0.richId == richId }
    }

    /// Sends waiting alerts, oldest first, while the presenter has room; answers whether it sent any.
    func presentWaitingAlerts() -> Bool {
        var presented = false
        while let next = waitingAlerts.first {
            if presenter is ConsolePresenter, let retryAt = desktopRetryAt, ContinuousClock.now >= retryAt {
                connectDesktop(reportingFailure: false)
            }
            if !presenter.isUsable { leaveDesktop(because: DBusSession.closed) }
            guard presenter.unanswered < Self.unansweredLimit else {
                logger.debug(
                    "alerts wait for the desktop",
                    metadata: [
                        "richpush.waiting": "\(waitingAlerts.count)", "richpush.next": "\(next.richId)",
                        "richpush.unanswered": "\(presenter.unanswered)",
                    ])
                break
            }
            waitingAlerts.removeFirst()
            present(next)
            presented = true
        }
        if presented { settleCursor() }
        return presented
    }

    /// Standard output from now on: nobody shows alerts on the bus. What the desktop had not answered comes here too,
    /// in order.
    func leaveDesktop(because reason: DBusFailure) {
        let desktop = presenter
        presenter = ConsolePresenter()
        desktopRetryAt = .now + Self.desktopRetryInterval
        logger.warning("the desktop is gone; alerts go to standard output", metadata: ["richpush.reason": "\(reason)"])
        desktop.abandon()
    }

    private func present(_ waiting: WaitingAlert) {
        let (richId, started) = (waiting.richId, ContinuousClock.now)
        var (alert, problem) = resolver.alert(richId: richId, richType: waiting.richType, message: waiting.message)
        // The sender's title is the alert's summary line; without one, the payload's kind names it.
        if let title = waiting.title { alert.summary = title }
        alert.actions = waiting.actions
        alert.urgency = waiting.interruptionLevel?.desktopUrgency
        let prepared = ContinuousClock.now
        if let problem { logger.warning("\(problem)") }
        let fetchTime = resolver.lastFetchTime
        state.markShown(richId)
        openTargets[richId] = alert.openTarget
        if !alert.actions.isEmpty { alertActions[richId] = alert.actions }
        alertsAwaitingId[richId] = false
        alertsOnTheBus.append(richId)
        let logShown = { [self] (alertId: UInt32?) in
            logger.debug(
                "alert shown",
                metadata: [
                    "richpush.id": "\(richId)", "richpush.alert": "\(alertId.map(String.init) ?? "console")",
                    "richpush.fetchMs": "\(Self.milliseconds(fetchTime))", "richpush.prepareMs": "\(Self.milliseconds(prepared - started))",
                    "richpush.showMs": "\(Self.milliseconds(ContinuousClock.now - prepared))",
                ])
        }
        presenter.show(alert) { [self] result in
            let closeAtOnce = alertsAwaitingId.removeValue(forKey: richId) ?? false
            switch result {
            case .success(let alertId):
                alertsOnTheBus.removeAll { $0 == richId }
                logShown(alertId)
                if let alertId {
                    reporter.submit(.displayed(richId: richId))
                    if closeAtOnce {
                        presenter.close(alertId)
                    } else {
                        state.alerts[richId] = alertId
                        save()
                    }
                }
            case .failure(.refused(let reason)):
                alertsOnTheBus.removeAll { $0 == richId }
                logger.warning("the desktop refused the alert", metadata: ["richpush.id": "\(richId)", "richpush.reason": "\(reason)"])
            case .failure(.desktopGone(let reason)):
                leftBehind[richId] = { [self] in
                    presenter.show(alert) { _ in }
                    logShown(nil)
                }
                if !(presenter is ConsolePresenter) { leaveDesktop(because: reason) }
            }
            showLeftBehind()
        }
        // The Notify call is on the bus; its answer comes back through the loop.
        logger.debug("alert sent", metadata: ["richpush.id": "\(richId)", "richpush.sendMs": "\(Self.milliseconds(ContinuousClock.now - prepared))"])
    }

    /// Shows what a desktop that went away left unanswered, in the order it was sent: the bus answers for a server that
    /// left in an order of its own, and some answers may still be on their way.
    private func showLeftBehind() {
        while let first = alertsOnTheBus.first, let show = leftBehind.removeValue(forKey: first) {
            alertsOnTheBus.removeFirst()
            show()
        }
    }

    /// Milliseconds with two decimals, for the verbose log.
    static func milliseconds(_ duration: Duration) -> String {
        let hundredths = Int64((duration / .microseconds(10)).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
