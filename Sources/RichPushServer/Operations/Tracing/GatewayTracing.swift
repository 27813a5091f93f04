import AsyncHTTPClient
import Instrumentation
import Logging
import Synchronization
import Tracing

/// The gateway's traces (`--otel-endpoint`): one tracer a process, and what marks a span as one of a notification's.
///
/// A notification's path is a trace of its own at each step (the `POST`, each claim, each hub batch, each record, each
/// payload fetch and receipt), every span naming the notifications it is about in `richpush.notification.id` (or
/// `richpush.notification.ids` for a batch): a collector's search by that attribute shows the whole path.
enum GatewayTracing {
    private static let started = Atomic<Bool>(false)

    /// Whether spans are recorded: the payload fast path asks before it starts one.
    static var isOn: Bool { started.load(ordering: .relaxed) }

    /// The exporter to run beside the server; the process's tracer is bootstrapped on the first call, and later calls
    /// (another application in the same process) share it.
    static func start(endpoint: String, logger: Logger) -> OTLPExporter {
        let exporter = OTLPExporter(endpoint: endpoint, client: .shared, logger: logger)
        if started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            InstrumentationSystem.bootstrap(OTLPTracer(exporter: exporter))
        }
        return exporter
    }

    /// Names notification `id` on the span the current task runs in (the request's).
    static func note(notification id: Int64) {
        guard isOn, let context = InstrumentationContext.current else { return }
        InstrumentationSystem.tracer.activeSpan(identifiedBy: context)?.attributes["richpush.notification.id"] = id
    }

    /// The attribute naming the notifications of a batch.
    static func notifications(_ ids: some Sequence<Int64>) -> SpanAttribute {
        .int64Array(Array(Set(ids)).sorted())
    }
}
