import Foundation
import GatewayTesting
import NIOHTTP1
import TestSupport
import Testing

/// `--otel-endpoint`: a notification's path as traces a collector receives over OTLP/HTTP, each span naming the
/// notification, decoded by opentelemetry-proto in a loopback collector (Tests/otel/otlp_receiver.py).
@Suite("Traces of a notification's path", .serialized)
struct TracingTests {
    /// One span as the collector decoded it.
    struct ReceivedSpan {
        var name: String
        var kind: Int
        var traceId: String
        var spanId: String
        var parentSpanId: String
        var attributes: [String: Any]

        /// Whether the span names notification `id`, alone or among a batch's.
        func names(_ id: Int64) -> Bool {
            if let single = attributes["richpush.notification.id"] as? Int64 ?? (attributes["richpush.notification.id"] as? Int).map(Int64.init) {
                return single == id
            }
            let batch = attributes["richpush.notification.ids"] as? [Any] ?? []
            return batch.contains { ($0 as? Int64 ?? ($0 as? Int).map(Int64.init)) == id }
        }

        var method: String? { attributes["http.request.method"] as? String }
    }

    @Test func aNotificationsPathArrivesAtTheCollectorAsSpansNamingIt() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-otlp-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: output) }
        let port = try freePort()
        let collector = try SpawnedProcess(
            "/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("Tests/otel/otlp_receiver.py").path, String(port), output.path])
        defer { collector.reapKilled() }
        let gateway = try GatewayProcess(extraArguments: ["--otel-endpoint", "http://127.0.0.1:\(port)"])
        defer { gateway.cleanUp() }
        try await gateway.start()

        let alice = try await gateway.addAliceWithLaptop()
        let created = try await gateway.request(
            .POST, "/api/notifications", as: .admin, json: #"{"message":"Sale","richType":"text","text":"30% off","audience":"username:alice"}"#)
        let id = try #require(ProcessTests.id(in: created.body))
        // The first fetch goes through the router, the second is answered from memory by the fast path: both are spans.
        #expect(try await gateway.request(.GET, "/api/notifications/\(id)", as: alice).status == 200)
        #expect(try await gateway.request(.GET, "/api/notifications/\(id)", as: alice).status == 200)
        #expect(
            try await gateway.request(
                .POST, "/api/me/notifications/\(id)/receipts", as: alice, json: #"{"installationId":"laptop","event":"displayed"}"#
            ).status == 201)

        var spans: [ReceivedSpan] = []
        func path() -> (
            post: ReceivedSpan?, write: ReceivedSpan?, claim: ReceivedSpan?, deliver: ReceivedSpan?, recorded: ReceivedSpan?,
            fetches: Int, receipt: ReceivedSpan?
        ) {
            let mine = spans.filter { $0.names(id) }
            return (
                mine.first {
                    $0.kind == 2 && $0.method == "POST" && ($0.attributes["http.route"] as? String ?? $0.name).hasSuffix("/api/notifications")
                },
                mine.first { $0.name == "notification.outbox.write" },
                mine.first { $0.name == "dispatch.claim" && ($0.attributes["richpush.deliveries"] as? Int ?? 0) > 0 },
                mine.first { $0.name == "hub.deliver" && $0.kind == 3 },
                mine.first {
                    ["dispatch.claim", "dispatch.record"].contains($0.name) && ($0.attributes["richpush.deliveries.recorded"] as? Int ?? 0) > 0
                },
                mine.count { $0.kind == 2 && $0.method == "GET" },
                mine.first { $0.kind == 2 && $0.method == "POST" && $0.name.contains("receipts") }
            )
        }
        let arrived = try await eventually(within: .seconds(20)) {
            spans = try Self.spans(in: output)
            let path = path()
            return path.post != nil && path.write != nil && path.claim != nil && path.deliver != nil && path.recorded != nil
                && path.fetches == 2 && path.receipt != nil
        }
        #expect(arrived, "spans received: \(spans.map { "\($0.name) \($0.attributes)" })")
        let received = path()
        // The outbox's write is a child of the POST that made it, in its trace.
        #expect(received.write?.traceId == received.post?.traceId)
        #expect(received.write?.parentSpanId == received.post?.spanId)
        // An idle dispatcher's looks, which took and recorded nothing, are no spans.
        #expect(!spans.contains { $0.name.hasSuffix(".claim") && ($0.attributes["richpush.notification.ids"] as? [Any])?.isEmpty == true })
        #expect(!(try String(contentsOf: output, encoding: .utf8).contains(#""error""#)), "the collector refused a body")
        await gateway.terminate(within: .seconds(10))
        collector.signal(SIGTERM)
    }

    /// Every span the collector has written so far.
    static func spans(in file: URL) throws -> [ReceivedSpan] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let name = object["name"] as? String
            else { return nil }
            return ReceivedSpan(
                name: name, kind: object["kind"] as? Int ?? 0, traceId: object["traceId"] as? String ?? "",
                spanId: object["spanId"] as? String ?? "", parentSpanId: object["parentSpanId"] as? String ?? "",
                attributes: object["attributes"] as? [String: Any] ?? [:])
        }
    }
}
