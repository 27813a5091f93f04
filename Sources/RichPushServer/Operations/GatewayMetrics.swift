import Prometheus
import RichPushCore

/// The gateway's metrics, in one Prometheus registry per process, each family with its `# HELP`.
///
/// Made on the registry itself rather than through swift-metrics, whose Prometheus factory registers every family
/// without help text. Labels carry only bounded, non-personal values (outcomes, platforms), never users or ids.
struct GatewayMetrics: Sendable {
    /// One registry however many applications a process builds; the same family asked for twice is the same series.
    static let registry = PrometheusCollectorRegistry()

    private let notificationsCreated: Counter
    private let imagesStored: Counter
    private let authenticationFailures: Counter
    private let openStreams: Gauge
    /// Payload fetches by outcome, made once: the payload path is the hottest in the gateway.
    private let payloadFetches: [PayloadFetchOutcome: Counter]

    init() {
        let registry = Self.registry
        notificationsCreated = registry.makeCounter(
            name: "richpush_notifications_created_total", help: "Notifications accepted for delivery, sent now or scheduled.")
        imagesStored = registry.makeCounter(name: "richpush_images_stored_total", help: "Images accepted by the image library.")
        authenticationFailures = registry.makeCounter(
            name: "richpush_auth_failures_total", help: "Requests refused for wrong, unknown or throttled credentials.")
        openStreams = registry.makeGauge(name: "richpush_streams_open", help: "Direct event streams open now.")
        payloadFetches = Dictionary(
            uniqueKeysWithValues: PayloadFetchOutcome.allCases.map {
                (
                    $0,
                    registry.makeCounter(
                        name: "richpush_payload_fetches_total", labels: $0.labels,
                        help: "Payload fetches by outcome, and whether memory or the store answered.")
                )
            })
    }

    func notificationCreated() { notificationsCreated.increment() }

    func imageStored() { imagesStored.increment() }

    func authenticationFailed() { authenticationFailures.increment() }

    func streamsOpen(_ count: Int) { openStreams.set(to: Double(count)) }

    func payloadFetch(_ outcome: PayloadFetchOutcome) {
        payloadFetches[outcome]?.increment()
    }

    /// The pushes a dispatcher counts: a notification's deliveries, the fallbacks of those not fetched in time, or
    /// Live Activities' pushes.
    enum Pushes {
        case deliveries
        case fallbacks
        case liveActivities

        /// The spans of a dispatcher's claims and records.
        var claimSpan: String { spanPrefix + ".claim" }
        var recordSpan: String { spanPrefix + ".record" }

        private var spanPrefix: String {
            switch self {
            case .deliveries: "dispatch"
            case .fallbacks: "fallbacks"
            case .liveActivities: "activities"
            }
        }

        var metric: (name: String, help: String) {
            switch self {
            case .deliveries: ("richpush_deliveries_total", "Silent pushes whose hub answered, by platform and outcome.")
            case .fallbacks:
                (
                    "richpush_fallbacks_total",
                    "Alert-style fallbacks, sent to devices that had not fetched the payload by the deadline, whose hub answered, by platform and outcome."
                )
            case .liveActivities:
                ("richpush_live_activity_pushes_total", "Live Activity pushes (start, update, end) whose hub answered, by platform and outcome.")
            }
        }
    }

    /// Counts a batch's recorded outcomes of `pushes` in their series by platform and outcome, tallied first so that
    /// each series is touched once per batch.
    static func outcomesRecorded(_ recorded: some Sequence<(platform: Platform, outcome: DeliveryOutcome)>, of pushes: Pushes) {
        var tally: [OutcomeSeries: Int] = [:]
        for (platform, outcome) in recorded { tally[OutcomeSeries(platform: platform, outcome: outcome.label), default: 0] += 1 }
        for (series, count) in tally {
            registry.makeCounter(
                name: pushes.metric.name, labels: [("platform", series.platform.rawValue), ("outcome", series.outcome)], help: pushes.metric.help
            ).increment(by: Int64(count))
        }
    }

    /// One series of the pushes' counters.
    private struct OutcomeSeries: Hashable {
        var platform: Platform
        var outcome: String
    }

    /// Counts one request of an `http` action the gateway made, by the class of its answer's status (`none` when it
    /// got none).
    static func actionRequestAnswered(status: Int) {
        let answer = status == 0 ? "none" : "\(status / 100)xx"
        registry.makeCounter(
            name: "richpush_action_requests_total", labels: [("answer", answer)],
            help: "Requests of http actions the gateway made for devices, by the class of the answer's status."
        ).increment()
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> [UInt8] {
        Self.registry.emitToBuffer()
    }
}

/// How a payload fetch ended, as `richpush_payload_fetches_total` counts it: its outcome, and whether the fast path
/// answered it from memory or the router did.
enum PayloadFetchOutcome: CaseIterable {
    case servedFromMemory
    case served
    case notFound
    case gone

    var labels: [(String, String)] {
        switch self {
        case .servedFromMemory: [("outcome", "ok"), ("path", "memory")]
        case .served: [("outcome", "ok"), ("path", "router")]
        case .notFound: [("outcome", "not_found"), ("path", "router")]
        case .gone: [("outcome", "gone"), ("path", "router")]
        }
    }
}
