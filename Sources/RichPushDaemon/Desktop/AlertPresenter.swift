/// What the user did with an alert, reported back by whatever shows alerts.
enum Interaction: Sendable, Equatable {
    /// An action was invoked: `default` (a click on the alert) or `more`.
    case action(alertId: UInt32, key: String)
    /// The alert closed: 1 expired, 2 dismissed by the user, 3 closed by a call, 4 undefined.
    case closed(alertId: UInt32, reason: UInt32)
}

/// Why an alert did not reach the screen.
enum AlertFailure: Error, Equatable {
    /// Nobody shows alerts on the bus any more (the notification server left, or the bus connection closed): this
    /// alert and the next go elsewhere.
    case desktopGone(DBusFailure)
    /// The notification server is there and turned this one alert down.
    case refused(DBusFailure)
}

/// Shows alerts: on the desktop (``DesktopNotifier``) or, without one, on standard output (``ConsolePresenter``).
protocol AlertPresenter: AnyObject {
    /// Shows `alert`. `shown` gets the id the desktop gave it (nil when nothing can be closed or clicked later), or
    /// why it did not take it: at once on the console, from a later ``interactions()`` on the desktop, so a slow
    /// notification server delays only its own answers.
    func show(_ alert: Alert, then shown: @escaping (Result<UInt32?, AlertFailure>) -> Void)
    /// Removes an alert from the screen.
    func close(_ alertId: UInt32)
    /// A descriptor that becomes readable when interactions arrive.
    var descriptor: Int32? { get }
    /// The interactions that arrived since the last call; answers to ``show(_:then:)`` are handed over meanwhile.
    func interactions() -> [Interaction]
    /// Alerts shown whose answer has not come yet.
    var unanswered: Int { get }
    /// Whether the presenter can still show alerts (the bus may have gone away).
    var isUsable: Bool { get }
    /// Gives the presenter up: every alert still unanswered gets ``AlertFailure/desktopGone(_:)`` now, in order.
    func abandon()
}
