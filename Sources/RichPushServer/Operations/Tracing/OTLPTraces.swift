import RichPushCore
import Tracing

/// An `ExportTraceServiceRequest` in OTLP's JSON form: ids in hex, times and 64-bit integers as decimal strings, enums
/// as their numbers (opentelemetry-proto, `trace/v1` and `collector/trace/v1`).
struct OTLPTraces: Encodable {
    struct ResourceSpans: Encodable {
        var resource: Resource
        var scopeSpans: [ScopeSpans]
    }

    struct Resource: Encodable {
        var attributes: [KeyValue]
    }

    struct ScopeSpans: Encodable {
        var scope: Scope
        var spans: [Span]
    }

    struct Scope: Encodable {
        var name: String
        var version: String
    }

    struct Span: Encodable {
        var traceId: String
        var spanId: String
        var parentSpanId: String?
        var name: String
        var kind: Int
        var startTimeUnixNano: String
        var endTimeUnixNano: String
        var attributes: [KeyValue]
        var events: [Event]
        var links: [Link]
        var status: Status
    }

    struct Event: Encodable {
        var timeUnixNano: String
        var name: String
        var attributes: [KeyValue]
    }

    struct Link: Encodable {
        var traceId: String
        var spanId: String
    }

    struct Status: Encodable {
        /// 0 unset, 1 ok, 2 error.
        var code: Int
        var message: String?
    }

    struct KeyValue: Encodable {
        var key: String
        var value: AnyValue
    }

    struct AnyValue: Encodable {
        var stringValue: String?
        var intValue: String?
        var doubleValue: Double?
        var boolValue: Bool?
        var arrayValue: ArrayValue?
    }

    struct ArrayValue: Encodable {
        var values: [AnyValue]
    }

    var resourceSpans: [ResourceSpans]

    init(_ spans: [FinishedSpan]) {
        let resource = Resource(attributes: [
            KeyValue(key: "service.name", value: AnyValue(stringValue: "richpush")),
            KeyValue(key: "service.version", value: AnyValue(stringValue: Release.version)),
        ])
        resourceSpans = [
            ResourceSpans(
                resource: resource,
                scopeSpans: [ScopeSpans(scope: Scope(name: "richpush", version: Release.version), spans: spans.map(Self.span))])
        ]
    }

    private static func span(_ span: FinishedSpan) -> Span {
        Span(
            traceId: SpanIdentity.hex(span.identity.traceId), spanId: SpanIdentity.hex(span.identity.spanId),
            parentSpanId: span.parentSpanId.map(SpanIdentity.hex), name: span.name, kind: kind(span.kind),
            startTimeUnixNano: String(span.start), endTimeUnixNano: String(span.end), attributes: keyValues(span.attributes),
            events: span.events.map {
                Event(timeUnixNano: String($0.nanosecondsSinceEpoch), name: $0.name, attributes: keyValues($0.attributes))
            },
            links: span.links.map { Link(traceId: SpanIdentity.hex($0.traceId), spanId: SpanIdentity.hex($0.spanId)) },
            status: span.status.map { Status(code: $0.code == .ok ? 1 : 2, message: $0.message) } ?? Status(code: 0))
    }

    private static func kind(_ kind: SpanKind) -> Int {
        switch kind {
        case .internal: 1
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        }
    }

    private static func keyValues(_ attributes: SpanAttributes) -> [KeyValue] {
        var values: [KeyValue] = []
        attributes.forEach { key, attribute in values.append(KeyValue(key: key, value: value(attribute))) }
        return values.sorted { $0.key < $1.key }
    }

    private static func value(_ attribute: SpanAttribute) -> AnyValue {
        switch attribute {
        case .int32(let value): AnyValue(intValue: String(value))
        case .int64(let value): AnyValue(intValue: String(value))
        case .double(let value): AnyValue(doubleValue: value)
        case .bool(let value): AnyValue(boolValue: value)
        case .string(let value): AnyValue(stringValue: value)
        case .int32Array(let values): AnyValue(arrayValue: ArrayValue(values: values.map { AnyValue(intValue: String($0)) }))
        case .int64Array(let values): AnyValue(arrayValue: ArrayValue(values: values.map { AnyValue(intValue: String($0)) }))
        case .doubleArray(let values): AnyValue(arrayValue: ArrayValue(values: values.map { AnyValue(doubleValue: $0) }))
        case .boolArray(let values): AnyValue(arrayValue: ArrayValue(values: values.map { AnyValue(boolValue: $0) }))
        case .stringArray(let values): AnyValue(arrayValue: ArrayValue(values: values.map { AnyValue(stringValue: $0) }))
        case .stringConvertible(let value): AnyValue(stringValue: value.description)
        case .stringConvertibleArray(let values): AnyValue(arrayValue: ArrayValue(values: values.map { AnyValue(stringValue: $0.description) }))
        default: AnyValue(stringValue: "\(attribute)")
        }
    }
}
