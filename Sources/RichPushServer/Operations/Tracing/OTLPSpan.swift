import Instrumentation
import Synchronization
import Tracing

/// One span of ``OTLPTracer``: what it records until it ends, when it goes to the exporter as a ``FinishedSpan``.
final class OTLPSpan: Tracing.Span {
    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var links: [SpanIdentity] = []
        var ended = false
    }

    let context: InstrumentationContext
    let identity: SpanIdentity
    private let kind: SpanKind
    private let parentSpanId: [UInt8]?
    private let start: UInt64
    private let tracer: OTLPTracer
    private let state: Mutex<State>

    init(
        name: String, kind: SpanKind, identity: SpanIdentity, parentSpanId: [UInt8]?, context: InstrumentationContext, start: UInt64,
        tracer: OTLPTracer
    ) {
        self.kind = kind
        self.identity = identity
        self.parentSpanId = parentSpanId
        self.context = context
        self.start = start
        self.tracer = tracer
        self.state = Mutex(State(name: name))
    }

    var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    var isRecording: Bool { state.withLock { !$0.ended } }

    func setStatus(_ status: SpanStatus) {
        state.withLock { $0.status = status }
    }

    func addEvent(_ event: SpanEvent) {
        state.withLock { $0.events.append(event) }
    }

    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        var attributes = attributes
        attributes["exception.type"] = "\(type(of: error))"
        attributes["exception.message"] = "\(error)"
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: attributes))
    }

    func addLink(_ link: SpanLink) {
        guard let identity = link.context[SpanIdentity.Key.self] else { return }
        state.withLock { $0.links.append(identity) }
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let end = instant().nanosecondsSinceEpoch
        let state: State? = self.state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state
        }
        guard let state else { return }
        tracer.ended(
            self,
            record: FinishedSpan(
                identity: identity, parentSpanId: parentSpanId, name: state.name, kind: kind, start: start, end: end,
                attributes: state.attributes, status: state.status, events: state.events, links: state.links))
    }
}

/// A span as the exporter sends it.
struct FinishedSpan: Sendable {
    var identity: SpanIdentity
    var parentSpanId: [UInt8]?
    var name: String
    var kind: SpanKind
    var start: UInt64
    var end: UInt64
    var attributes: SpanAttributes
    var status: SpanStatus?
    var events: [SpanEvent]
    var links: [SpanIdentity]
}
