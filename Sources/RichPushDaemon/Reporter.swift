import Logging
import RichPushCore

/// Sends what happened on this device back to the gateway, in order, on its own thread so that a slow or absent
/// gateway never holds up an alert: receipts (`displayed`), the user's state (`activated`, `read`, `dismissed`, with
/// the button pressed) and the `http` actions the gateway runs for the device.
final class Reporter: @unchecked Sendable {
    enum Report: Sendable, Equatable {
        case displayed(richId: Int64)
        case state(richId: Int64, readState: ReadState?, userActionState: UserActionState?, action: String? = nil)
        case runAction(richId: Int64, action: String)
    }

    /// Reports that fail for a reason worth retrying wait this long, doubling per attempt.
    static let retryBackoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
    static let maximumAttempts = 8
    /// At shutdown, what is still queued gets this long in all: systemd's stop timeout must not run out.
    static let finishingTime = Duration.seconds(3)

    private let gateway: @Sendable () -> GatewayClient
    private var installationId = ""
    private let logger: Logger
    private let queue = BlockingQueue<Report>()
    private var thread: WorkerThread?

    init(gateway: @escaping @Sendable () -> GatewayClient, logger: Logger) {
        self.gateway = gateway
        self.logger = logger
    }

    /// Starts sending, as `installationId` (the receipts name the installation that showed the alert).
    func start(installationId: String) {
        self.installationId = installationId
        thread = WorkerThread(name: "richpushd-report") { [self] in run() }
    }

    func submit(_ report: Report) {
        queue.append(report)
    }

    /// Sends what is still queued (each report once more at most) and ends the thread.
    func finish() {
        queue.close()
        thread?.join()
    }

    private func run() {
        let client = gateway()
        var pending: [Report] = []
        var backoff = Self.retryBackoff
        var attempts = 0
        var delay: Duration?
        var finishDeadline: ContinuousClock.Instant?
        while true {
            pending += queue.take(waitingUpTo: pending.isEmpty ? nil : delay)
            let finishing = queue.isClosed
            if finishing && finishDeadline == nil {
                finishDeadline = .now + Self.finishingTime
                client.timeout = Self.finishingTime
            }
            if finishing && (pending.isEmpty || ContinuousClock.now >= finishDeadline!) {
                if !pending.isEmpty { logger.warning("reports not delivered at shutdown", metadata: ["richpush.count": "\(pending.count)"]) }
                return
            }
            // Strictly in order: "activated" must not overtake an earlier "displayed" of the same alert.
            while let report = pending.first, finishDeadline.map({ ContinuousClock.now < $0 }) ?? true {
                do {
                    try send(report, with: client)
                    pending.removeFirst()
                    attempts = 0
                    backoff.reset()
                } catch let error where error.isTransient && !finishing && attempts + 1 < Self.maximumAttempts {
                    attempts += 1
                    delay = backoff.nextDelay()
                    logger.debug("report retry", metadata: ["richpush.report": "\(report)", "richpush.reason": "\(error)"])
                    break
                } catch {
                    logger.warning("report not delivered", metadata: ["richpush.report": "\(report)", "richpush.reason": "\(error)"])
                    pending.removeFirst()
                    attempts = 0
                }
            }
        }
    }

    private func send(_ report: Report, with client: GatewayClient) throws(GatewayError) {
        switch report {
        case .displayed(let richId):
            try client.postReceipt(richId: richId, installationId: installationId, event: .displayed)
        case .state(let richId, let readState, let userActionState, let action):
            try client.updateState(richId: richId, readState: readState, userActionState: userActionState, action: action)
        case .runAction(let richId, let action):
            try client.runAction(richId: richId, action: action, installationId: installationId)
        }
        logger.debug("report delivered", metadata: ["richpush.report": "\(report)"])
    }
}
