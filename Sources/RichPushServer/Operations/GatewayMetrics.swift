import CoreMetrics
import Prometheus

/// The gateway's metrics, through swift-metrics into one Prometheus registry per process.
///
/// Labels carry only bounded, non-personal values (outcomes, platforms), never users or ids.
struct GatewayMetrics: Sendable {
    /// swift-metrics has one global backend, bootstrapped once per process however many applications are built.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    let notificationsCreated: CoreMetrics.Counter
    let imagesStored: CoreMetrics.Counter
    let authenticationFailures: CoreMetrics.Counter
    let openStreams: CoreMetrics.Gauge
    /// Payload fetches by outcome, made once: the payload path is the hottest in the gateway.
    private let payloadFetches: [PayloadFetchOutcome: CoreMetrics.Counter]

    init() {
        _ = Self.registry
        notificationsCreated = CoreMetrics.Counter(label: "richpush_notifications_created_total")
        imagesStored = CoreMetrics.Counter(label: "richpush_images_stored_total")
        authenticationFailures = CoreMetrics.Counter(label: "richpush_auth_failures_total")
        openStreams = CoreMetrics.Gauge(label: "richpush_streams_open")
        payloadFetches = Dictionary(
            uniqueKeysWithValues: PayloadFetchOutcome.allCases.map {
                ($0, CoreMetrics.Counter(label: "richpush_payload_fetches_total", dimensions: $0.dimensions))
            })
    }

    func payloadFetch(_ outcome: PayloadFetchOutcome) {
        payloadFetches[outcome]?.increment()
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

    var dimensions: [(String, String)] {
        switch self {
        case .servedFromMemory: [("outcome", "ok"), ("path", "memory")]
        case .served: [("outcome", "ok"), ("path", "router")]
        case .notFound: [("outcome", "not_found"), ("path", "router")]
        case .gone: [("outcome", "gone"), ("path", "router")]
        }
    }
}
