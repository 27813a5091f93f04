import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization
import Tracing

/// Sends finished spans to an OTLP/HTTP collector (`--otel-endpoint`, its `/v1/traces`) as JSON, a batch a second and
/// what is left when the gateway stops. A collector that is down costs the spans of that moment, never a request: at
/// most ``capacity`` spans wait, the oldest dropped first and counted in the log.
final class OTLPExporter: Service, Sendable {
    static let capacity = 20_000
    static let batchSize = 2_000

    private let url: String
    private let client: HTTPClient
    private let logger: Logger
    /// A ring: while a collector is down and the spans wait at capacity, each new one drops the oldest in constant
    /// time, on the path of the request that made it.
    private let pending = Mutex<(spans: CircularBuffer<FinishedSpan>, dropped: Int)>((CircularBuffer(initialCapacity: 1024), 0))

    /// `endpoint` is the collector's base URL (`http://collector:4318`); the spans go to its `/v1/traces`.
    init(endpoint: String, client: HTTPClient, logger: Logger) {
        self.url = (endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint) + "/v1/traces"
        self.client = client
        self.logger = logger
    }

    func add(_ span: FinishedSpan) {
        pending.withLock { pending in
            if pending.spans.count >= Self.capacity {
                pending.spans.removeFirst()
                pending.dropped += 1
            }
            pending.spans.append(span)
        }
    }

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            await flush()
        }
        await flush()
    }

    /// Sends what waits, a batch at a time.
    func flush() async {
        while true {
            let (batch, dropped) = pending.withLock { pending in
                let batch = Array(pending.spans.prefix(Self.batchSize))
                pending.spans.removeFirst(batch.count)
                defer { pending.dropped = 0 }
                return (batch, pending.dropped)
            }
            if dropped > 0 { logger.warning("trace spans dropped: the collector is behind", metadata: ["richpush.spans": "\(dropped)"]) }
            guard !batch.isEmpty else { return }
            do {
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(OTLPTraces(batch))))
                let response = try await client.execute(request, timeout: .seconds(10))
                _ = try? await response.body.collect(upTo: 64 * 1024)
                guard (200..<300).contains(response.status.code) else {
                    logger.warning("the trace collector refused spans", metadata: ["richpush.status": "\(response.status.code)"])
                    return
                }
            } catch {
                logger.warning("trace spans not sent", metadata: ["error": "\(error)", "richpush.spans": "\(batch.count)"])
                return
            }
        }
    }
}
