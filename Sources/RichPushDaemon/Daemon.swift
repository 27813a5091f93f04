import CLinux
import Glibc
public import Logging
import RichPushCore

/// `richpushd`: turns the user's direct stream into desktop alerts with the image inside, and the user's clicks and
/// dismissals into state that reaches the user's other devices.
///
/// One loop thread owns the state, the payload fetches and the D-Bus connection; the stream and the reports run on
/// threads of their own. State is saved after every event, so a restart resumes where the last run stopped and
/// shows nothing twice.
public final class Daemon {
    let configuration: DaemonConfiguration
    let credential: GatewayCredential
    let environment: [String: String]
    let logger: Logger

    var state = DaemonState()
    var stateDirectory: StateDirectory
    var installationId = ""
    var presenter: any AlertPresenter = ConsolePresenter()
    var desktopRetryAt: ContinuousClock.Instant?
    let resolver: PayloadResolver
    let cache: PayloadCache
    let reporter: Reporter
    let opener: Opener
    /// What "default" and "More" open, by notification; alerts of an earlier run cannot be clicked any more.
    var openTargets: [Int64: String] = [:]
    /// The sender's buttons on each alert up, by notification.
    var alertActions: [Int64: [DeviceAction]] = [:]
    /// Notifications whose alert the desktop has not numbered yet, and whether it must close once numbered (it was
    /// dismissed elsewhere or recalled meanwhile).
    var alertsAwaitingId: [Int64: Bool] = [:]
    /// Alerts waiting for room on the desktop, oldest first.
    var waitingAlerts: [WaitingAlert] = []
    /// The notifications whose alert is on the bus unanswered, in the order they were sent.
    var alertsOnTheBus: [Int64] = []
    /// How to show elsewhere, by notification, what a desktop that went away left unanswered.
    var leftBehind: [Int64: () -> Void] = [:]
    /// The cursor of the last event handled; the saved one stays before the oldest alert still waiting.
    var streamCursor: Int64?

    /// How long after losing the desktop (or starting without one) the daemon tries the session bus again.
    static let desktopRetryInterval = Duration.seconds(30)

    public init(configuration: DaemonConfiguration, credential: GatewayCredential, environment: [String: String], logger: Logger) {
        self.configuration = configuration
        self.credential = credential
        self.environment = environment
        self.logger = logger
        self.stateDirectory = StateDirectory(path: configuration.stateDirectory)
        self.cache = PayloadCache(directory: configuration.cacheDirectory, limit: configuration.cacheLimit)
        self.opener = Opener(command: configuration.openCommand)
        let (server, caFile) = (configuration.server, configuration.caFile)
        let gateway = { @Sendable in GatewayClient(server: server, credential: credential, caFile: caFile) }
        self.resolver = PayloadResolver(gateway: gateway(), cache: cache, imageSize: configuration.imageSize)
        self.reporter = Reporter(gateway: gateway, logger: logger)
    }

    /// Runs until SIGTERM, SIGINT or SIGHUP (or, with `--once`, until caught up); returns the exit status.
    public func run() -> Int32 {
        let signals = SignalWatch()
        let inbox = Inbox<StreamNotice>()
        let resumeCursor: Int64?
        do {
            let known = (try? FileIO.read(stateDirectory.installationIdPath)) != nil
            installationId = try stateDirectory.installationId()
            resolver.installationId = installationId
            let (saved, damaged) = try stateDirectory.loadState()
            state = saved
            if damaged { logger.warning("the state file is damaged; starting with new notifications only", metadata: path) }
            // A new installation has no past: replay from the start of the user's stream, which holds only events
            // for it from its registration on. A known one without a position lost it: start with new events.
            resumeCursor = state.cursor ?? (known ? nil : 0)
            state.cursor = resumeCursor
            streamCursor = resumeCursor
            try stateDirectory.save(state)
        } catch {
            logger.critical("cannot use the state directory", metadata: ["richpush.error": "\(error)"])
            return 73
        }
        let settings = EventStream.Settings(
            server: configuration.server, credential: credential, caFile: configuration.caFile,
            installationId: installationId, tags: configuration.tags, heartbeatTimeout: configuration.heartbeatTimeout,
            once: configuration.once)
        connectDesktop(reportingFailure: true)
        reporter.start(installationId: installationId)
        let stream = EventStream(settings: settings, resumeCursor: resumeCursor, logger: logger) { inbox.deliver($0) }
        stream.start()
        logger.info(
            "richpushd started",
            metadata: [
                "richpush.server": "\(configuration.server)", "richpush.credential": "\(credential.holder)",
                "richpush.installation": "\(installationId)",
            ])

        let exitCode = loop(inbox: inbox, signals: signals)
        stream.stop()
        reporter.finish()
        save()
        logger.info("richpushd stopped")
        return exitCode
    }

    private var path: Logger.Metadata { ["richpush.path": "\(stateDirectory.statePath)"] }

    /// Handles interactions, stream notices and signals until it is time to stop.
    private func loop(inbox: Inbox<StreamNotice>, signals: SignalWatch) -> Int32 {
        var needsTrim = false
        var caughtUp = false
        while true {
            var busy = false
            for interaction in presenter.interactions() {
                busy = true
                handle(interaction)
            }
            inbox.wakeup.drain()
            for notice in inbox.take() {
                busy = true
                switch notice {
                case .event(let event): handle(event)
                case .unknown(let cursor): advance(to: cursor)
                case .caughtUp:
                    logger.debug("caught up with the stream")
                    caughtUp = true
                case .fatal(let reason, let exitCode):
                    logger.critical("\(reason)")
                    return exitCode
                }
            }
            if presentWaitingAlerts() { busy = true }
            // `--once` ends when what it caught up with is on screen, its ids known for the next run to close.
            if configuration.once && caughtUp && waitingAlerts.isEmpty && presenter.unanswered == 0 { return 0 }
            // Messages libdbus read during a call wait in its queue, not on the socket: look again before sleeping.
            if busy {
                needsTrim = true
                continue
            }
            // Decoding an image takes megabytes that malloc would keep; an idle daemon hands them back.
            if needsTrim {
                malloc_trim(0)
                needsTrim = false
            }
            var descriptors = [
                pollfd(fd: inbox.wakeup.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            if let descriptor = presenter.descriptor { descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
            // Nothing runs on a timer: an idle daemon sleeps until the gateway, the desktop or a signal wakes it. An
            // answer from the desktop is waited for as long as the desktop is there: a slow one is not a gone one.
            _ = poll(&descriptors, nfds_t(descriptors.count), -1)
            for signal in signals.take() {
                guard SignalWatch.stopping.contains(signal) else {
                    opener.reap()
                    continue
                }
                logger.info("stopping", metadata: ["richpush.signal": "\(String(cString: strsignal(signal)))"])
                return 0
            }
        }
    }

    /// Shows alerts on the desktop when a notification server answers, else on standard output.
    func connectDesktop(reportingFailure: Bool) {
        do {
            let desktop = try DesktopNotifier(environment: environment)
            presenter = desktop
            desktopRetryAt = nil
            logger.info(
                "alerts go to the desktop",
                metadata: ["richpush.server": "\(desktop.serverDescription)", "richpush.capabilities": "\(desktop.capabilities.sorted())"])
        } catch {
            desktopRetryAt = .now + Self.desktopRetryInterval
            if reportingFailure {
                logger.notice("no desktop notifications; alerts go to standard output", metadata: ["richpush.reason": "\(error)"])
            }
        }
    }

    func save() {
        do {
            try stateDirectory.save(state)
        } catch {
            logger.error("cannot save the state", metadata: ["richpush.error": "\(error)"])
        }
    }

    func advance(to cursor: Int64) {
        streamCursor = max(streamCursor ?? 0, cursor)
        settleCursor()
    }

    /// Saves the position a restart resumes after: the last event handled, or just before the oldest alert still
    /// waiting, which a restart must show; what follows it is shown once (the shown list) or idempotent.
    func settleCursor() {
        state.cursor = waitingAlerts.first.map { $0.cursor - 1 } ?? streamCursor
        save()
    }
}
