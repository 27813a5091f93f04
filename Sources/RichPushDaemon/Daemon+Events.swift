import Logging
import RichPushCore

extension Daemon {
    /// One event of the stream; the cursor is saved once it is handled.
    func handle(_ event: StreamEvent) {
        logger.debug(
            "event received", metadata: ["richpush.event": "\(event.name)", "richpush.cursor": "\(event.cursor)", "richpush.data": "\(event.data)"])
        switch event.body {
        case .rich(let richId, let richType, let message, let title, _, let actions, let interruptionLevel):
            queueAlert(
                WaitingAlert(
                    richId: richId, richType: richType, message: message, title: title, actions: actions, interruptionLevel: interruptionLevel,
                    cursor: event.cursor))
        case .state(let richId, _, let action):
            // Acted on elsewhere: the alert has served its purpose here too. "read" alone leaves it up.
            if action != .noInteraction {
                dropWaitingAlert(of: richId)
                removeAlert(of: richId, because: "\(action.rawValue) on another device")
            }
        case .deleted(let richId):
            dropWaitingAlert(of: richId)
            removeAlert(of: richId, because: "recalled")
            cache.remove(richId: richId)
            openTargets[richId] = nil
            alertActions[richId] = nil
        }
        advance(to: event.cursor)
    }

    /// Closes the alert of a notification, if one is up. It leaves the map first, so the `NotificationClosed` that
    /// follows finds no notification and is not reported back: no loops.
    private func removeAlert(of richId: Int64, because reason: String) {
        if alertsAwaitingId[richId] != nil { alertsAwaitingId[richId] = true }
        guard let alertId = state.alerts.removeValue(forKey: richId) else { return }
        presenter.close(alertId)
        logger.debug("alert closed", metadata: ["richpush.id": "\(richId)", "richpush.reason": "\(reason)"])
    }

    /// What the sender's button does: `open` opens its link, `http` has the gateway make its request, `dismiss`
    /// dismisses; each is reported with the button's id.
    private func press(_ action: DeviceAction, of richId: Int64) {
        switch action.kind {
        case .open:
            if let url = action.url, let problem = opener.open(url) {
                logger.warning("cannot open the action's link", metadata: ["richpush.reason": "\(problem)"])
            }
            reporter.submit(.state(richId: richId, readState: .read, userActionState: .activated, action: action.id))
        case .http:
            reporter.submit(.runAction(richId: richId, action: action.id))
        case .dismiss:
            reporter.submit(.state(richId: richId, readState: nil, userActionState: .dismissed, action: action.id))
        }
    }

    func handle(_ interaction: Interaction) {
        switch interaction {
        case .action(let alertId, let key):
            guard let richId = state.richId(ofAlert: alertId) else { return }
            if let id = DesktopNotifier.actionId(inKey: key) {
                guard let action = alertActions[richId]?.first(where: { $0.id == id }) else { return }
                state.alerts[richId] = nil
                save()
                press(action, of: richId)
            } else {
                guard key == "default" || key == "more" else { return }
                state.alerts[richId] = nil
                save()
                if let target = openTargets[richId] {
                    if let problem = opener.open(target) { logger.warning("cannot open the payload", metadata: ["richpush.reason": "\(problem)"]) }
                }
                reporter.submit(.state(richId: richId, readState: .read, userActionState: .activated))
            }
            alertActions[richId] = nil
            // Most servers close an alert once it is clicked; this makes sure, and its closing is not a dismissal.
            presenter.close(alertId)
            logger.debug("alert activated", metadata: ["richpush.id": "\(richId)", "richpush.action": "\(key)"])
        case .closed(let alertId, let reason):
            guard let richId = state.richId(ofAlert: alertId) else {
                // An alert the daemon closed itself (clicked, or dismissed, read or recalled elsewhere): nothing to tell.
                logger.debug("alert closing not reported", metadata: ["richpush.alert": "\(alertId)", "richpush.reason": "\(reason)"])
                return
            }
            state.alerts[richId] = nil
            save()
            // 2 is the user's dismissal; expiry (1) and other closings are not the user's choice.
            if reason == 2 {
                reporter.submit(.state(richId: richId, readState: nil, userActionState: .dismissed))
                logger.debug("alert dismissed", metadata: ["richpush.id": "\(richId)"])
            }
        }
    }
}
