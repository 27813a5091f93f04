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

    init() {
        _ = Self.registry
        notificationsCreated = CoreMetrics.Counter(label: "richpush_notifications_created_total")
        imagesStored = CoreMetrics.Counter(label: "richpush_images_stored_total")
        authenticationFailures = CoreMetrics.Counter(label: "richpush_auth_failures_total")
        openStreams = CoreMetrics.Gauge(label: "richpush_streams_open")
    }

    func payloadFetch(_ outcome: String) {
        CoreMetrics.Counter(label: "richpush_payload_fetches_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> [UInt8] {
        Self.registry.emitToBuffer()
    }
}
