import CCurl
import Logging
import RichPushCore

/// The direct channel: registers the installation, keeps `/api/me/stream` open on its own thread and hands every
/// event to the daemon's loop.
///
/// After any disconnect it resumes with `Last-Event-ID` (the gateway replays what was missed), waiting between
/// attempts with ``Backoff``. A stream silent for longer than the heartbeat timeout is dead and replaced.
final class EventStream: @unchecked Sendable {
    struct Settings: Sendable {
        var server: String
        var credential: GatewayCredential
        var caFile: String?
        var installationId: String
        var tags: [String]
        var heartbeatTimeout: Duration
        /// `--once`: report ``StreamNotice/caughtUp`` early and give up instead of retrying.
        var once: Bool
        var initialBackoff: Duration = .seconds(1)
        var maximumBackoff: Duration = .seconds(60)
    }

    /// A stream that stayed up this long was healthy, whatever ended it.
    static let healthyLifetime = Duration.seconds(30)
    /// With `--once`, this long without a byte after connecting means the replay is over.
    static let quietAfterReplay = Duration.milliseconds(1000)

    private let settings: Settings
    private let logger: Logger
    private let deliver: @Sendable (StreamNotice) -> Void
    private let multi: UnsafeMutableRawPointer
    private let stopping = Flag()
    private var thread: WorkerThread?
    private var resumeCursor: Int64?

    init(settings: Settings, resumeCursor: Int64?, logger: Logger, deliver: @escaping @Sendable (StreamNotice) -> Void) {
        self.settings = settings
        self.resumeCursor = resumeCursor
        self.logger = logger
        self.deliver = deliver
        guard let multi = curl_multi_init() else { fatalError("libcurl could not create a multi handle") }
        self.multi = multi
    }

    deinit { curl_multi_cleanup(multi) }

    func start() {
        thread = WorkerThread(name: "richpushd-stream") { [self] in run() }
    }

    /// Ends the stream at once (libcurl's wakeup interrupts any wait) and waits for the thread.
    func stop() {
        stopping.set()
        curl_multi_wakeup(multi)
        thread?.join()
    }

    private enum Outcome {
        case stopped
        case ended(healthy: Bool, reason: String)
        case unregistered
        case rejected(String)
    }

    private func run() {
        let gateway = GatewayClient(server: settings.server, credential: settings.credential, caFile: settings.caFile)
        let easy = CurlEasy(credential: settings.credential, caFile: settings.caFile)
        var backoff = Backoff(initial: settings.initialBackoff, maximum: settings.maximumBackoff)
        var registered = false
        var lastProblem: String?
        while !stopping.isSet {
            let problem: String
            if !registered {
                do {
                    try gateway.register(installationId: settings.installationId, tags: settings.tags)
                    registered = true
                    logger.debug("installation registered", metadata: ["richpush.installation": "\(settings.installationId)"])
                    continue
                } catch let error where error.status == 401 || error.status == 403 {
                    deliver(.fatal("the gateway rejected \(settings.credential.holder): \(error)", exitCode: 78))
                    return
                } catch {
                    problem = "cannot register the installation: \(error)"
                }
            } else {
                switch connect(easy) {
                case .stopped:
                    return
                case .rejected(let reason):
                    deliver(.fatal(reason, exitCode: 78))
                    return
                case .unregistered:
                    registered = false
                    problem = "the gateway no longer knows installation \(settings.installationId); registering again"
                case .ended(let healthy, let reason):
                    if healthy {
                        backoff.reset()
                        lastProblem = nil
                    }
                    problem = reason
                }
            }
            if settings.once {
                deliver(.fatal(problem, exitCode: 69))
                return
            }
            let delay = backoff.nextDelay()
            let metadata: Logger.Metadata = ["richpush.retryIn": "\(delay.formatted)"]
            // A problem that repeats is logged once, then only in verbose mode.
            if problem == lastProblem {
                logger.debug("stream retry", metadata: metadata.merging(["richpush.reason": "\(problem)"]) { $1 })
            } else {
                logger.warning("\(problem)", metadata: metadata)
            }
            lastProblem = problem
            wait(delay)
        }
    }

    /// One connection, from the request to its end.
    private func connect(_ easy: CurlEasy) -> Outcome {
        var headers = ["Accept: text/event-stream"]
        if let resumeCursor { headers.append("Last-Event-ID: \(resumeCursor)") }
        let query = "?installationId=\(settings.installationId)"
        let request = GatewayRequest(method: .get, url: settings.server + "/api/me/stream" + query, headers: headers, timeout: nil)
        let logger = self.logger
        let metadata: Logger.Metadata = [
            "richpush.cursor": "\(resumeCursor.map(String.init) ?? "new")", "richpush.installation": "\(settings.installationId)",
        ]
        let sink = EventSink(
            timeout: settings.heartbeatTimeout, responseStatus: { easy.status }, connected: { logger.info("stream connected", metadata: metadata) },
            deliver: deliver)
        easy.prepare(request, into: sink)
        curl_multi_add_handle(multi, easy.handle)
        defer { curl_multi_remove_handle(multi, easy.handle) }
        let started = ContinuousClock.now
        var caughtUp = false
        var result = CURLE_OK
        var dead = false
        while true {
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            if let message = readResult() { result = message }
            if sink.lastCursor != nil { resumeCursor = sink.lastCursor }
            if stopping.isSet { return .stopped }
            if running == 0 { break }
            if sink.status == 200 && !caughtUp
                && (sink.heartbeatCount > 0 || (settings.once && sink.liveness.silence() >= Self.quietAfterReplay))
            {
                caughtUp = true
                deliver(.caughtUp)
            }
            if sink.liveness.isDead() {
                dead = true
                break
            }
            // Wake when data comes, when libcurl has work, or when the watchdog or the --once quiet period could fire.
            let untilDead = settings.heartbeatTimeout - sink.liveness.silence()
            let wait = settings.once ? min(untilDead, .milliseconds(100)) : untilDead
            curl_multi_poll(multi, nil, 0, Int32(max(10, min(wait / .milliseconds(1), 60_000)).rounded(.up)), nil)
        }
        let lived = ContinuousClock.now - started
        let healthy = sink.status == 200 && (lived >= Self.healthyLifetime || sink.eventCount > 0 || sink.heartbeatCount > 0)
        if dead {
            return .ended(healthy: healthy, reason: "no heartbeat for \(sink.liveness.silence().formatted): the stream is dead")
        }
        switch sink.status {
        case nil:
            var reason = "the stream could not connect"
            do { try easy.check(result) } catch { reason = "the stream could not connect: \(error.message)" }
            return .ended(healthy: false, reason: reason)
        case 200:
            var reason = "the gateway ended the stream"
            do { try easy.check(result) } catch { reason = "the stream broke: \(error.message)" }
            return .ended(healthy: healthy, reason: reason)
        case 401, 403:
            return .rejected("the gateway rejected \(settings.credential.holder) (\(sink.status!))")
        case 404:
            return .unregistered
        default:
            let error = GatewayError(GatewayResponse(status: sink.status!, body: sink.errorBody))
            return .ended(healthy: false, reason: "the stream was refused: \(error)")
        }
    }

    private func readResult() -> CURLcode? {
        var remaining: Int32 = 0
        var result: CURLcode?
        while let message = curl_multi_info_read(multi, &remaining) {
            if message.pointee.msg == CURLMSG_DONE { result = rp_curl_message_result(message) }
        }
        return result
    }

    /// Sleeps for `delay` unless ``stop()`` is called first.
    private func wait(_ delay: Duration) {
        let deadline = ContinuousClock.now + delay
        while !stopping.isSet {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            curl_multi_poll(multi, nil, 0, Int32(min(left / .milliseconds(1), 60_000).rounded(.up)), nil)
        }
    }
}

extension GatewayResponse {
    init(status: Int, body: [UInt8]) {
        self.init(status: status, contentType: nil, redirectLocation: nil, body: body)
    }
}

extension Duration {
    /// Seconds with one decimal, for logs: "2.5s".
    var formatted: String {
        let tenths = Int64((self / .milliseconds(100)).rounded())
        return "\(tenths / 10).\(tenths % 10)s"
    }
}
