// The gateway's traces go out as OTLP/HTTP with JSON bodies (`--otel-endpoint`), through this Tracer of
// swift-distributed-tracing (already in the build for Hummingbird's TracingMiddleware) and ``OTLPExporter``, rather
// than through swift-otel: swift-otel brings swift-protobuf's generated OTLP types (and gRPC with its default traits)
// into a build that CI makes from scratch on every run, where OTLP's JSON form of the few messages sent takes a page.
import Instrumentation
import Synchronization
import Tracing

/// Starts the gateway's spans: each one a child of the span in the context it is started in, or of a remote parent a
/// `traceparent` header named (W3C Trace Context), or the root of a new trace.
final class OTLPTracer: Tracer {
    typealias Span = OTLPSpan

    let exporter: OTLPExporter
    /// Spans started and not yet ended, by their identity, for ``activeSpan(identifiedBy:)``.
    private let active = Mutex<[SpanIdentity: OTLPSpan]>([:])

    init(exporter: OTLPExporter) {
        self.exporter = exporter
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> OTLPSpan {
        var context = context()
        let parent = context[SpanIdentity.Key.self]
        let identity = SpanIdentity(traceId: parent?.traceId ?? SpanIdentity.randomBytes(16), spanId: SpanIdentity.randomBytes(8))
        context[SpanIdentity.Key.self] = identity
        let span = OTLPSpan(
            name: operationName, kind: kind, identity: identity, parentSpanId: parent?.spanId, context: context,
            start: instant().nanosecondsSinceEpoch, tracer: self)
        active.withLock { $0[identity] = span }
        return span
    }

    func activeSpan(identifiedBy context: InstrumentationContext) -> OTLPSpan? {
        guard let identity = context[SpanIdentity.Key.self] else { return nil }
        return active.withLock { $0[identity] }
    }

    func ended(_ span: OTLPSpan, record: FinishedSpan) {
        _ = active.withLock { $0.removeValue(forKey: span.identity) }
        exporter.add(record)
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: "traceparent", from: carrier), let remote = SpanIdentity(traceparent: header) else { return }
        context[SpanIdentity.Key.self] = remote
    }

    func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let identity = context[SpanIdentity.Key.self] else { return }
        injector.inject(identity.traceparent, forKey: "traceparent", into: &carrier)
    }
}

/// A trace's id and a span's in it, as W3C Trace Context and OTLP write them (lower-case hex).
struct SpanIdentity: Sendable, Hashable {
    enum Key: InstrumentationContextKey {
        typealias Value = SpanIdentity
    }

    var traceId: [UInt8]
    var spanId: [UInt8]

    init(traceId: [UInt8], spanId: [UInt8]) {
        self.traceId = traceId
        self.spanId = spanId
    }

    /// The parent a `traceparent` header names (`00-<32 hex>-<16 hex>-<2 hex>`); nil for anything else or all-zero ids.
    init?(traceparent: String) {
        let parts = traceparent.split(separator: "-")
        guard parts.count == 4, parts[0] == "00", let traceId = Self.bytes(hex: parts[1], count: 16),
            let spanId = Self.bytes(hex: parts[2], count: 8),
            traceId.contains(where: { $0 != 0 }), spanId.contains(where: { $0 != 0 })
        else { return nil }
        self.init(traceId: traceId, spanId: spanId)
    }

    var traceparent: String { "00-\(Self.hex(traceId))-\(Self.hex(spanId))-01" }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func bytes(hex: Substring, count: Int) -> [UInt8]? {
        let text = Array(hex.utf8)
        guard text.count == count * 2 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: text.count, by: 2) {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if bytes.allSatisfy({ $0 == 0 }) { bytes[count - 1] = 1 }
        return bytes
    }
}
