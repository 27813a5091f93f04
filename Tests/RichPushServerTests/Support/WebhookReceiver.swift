import Foundation
import HubTestServers
import Hummingbird
import NIOCore
import Synchronization

/// A webhook receiver on loopback: keeps every request it gets, headers and body as they came, and answers each with
/// the next status of its script (the last one once the script runs out).
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        var headers: [String: String]
        var body: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }

        /// The events the body carries: itself, or a batch's events.
        var events: [[String: Any]] {
            json["type"] as? String == "batch" ? json["events"] as? [[String: Any]] ?? [] : [json]
        }
    }

    private final class Log: Sendable {
        let state: Mutex<(deliveries: [Delivery], statuses: [Int])>

        init(statuses: [Int]) {
            state = Mutex(([], statuses))
        }
    }

    private let log: Log
    private let server: LoopbackServer

    var url: String { "http://127.0.0.1:\(server.port)/hook" }
    var deliveries: [Delivery] { log.state.withLock { $0.deliveries } }
    /// Every event received, in order, each as often as it came.
    var events: [[String: Any]] { deliveries.flatMap(\.events) }

    static func start(answering statuses: [Int] = [204]) async throws -> WebhookReceiver {
        let log = Log(statuses: statuses)
        let router = Router(context: LoopbackContext.self)
        router.post("hook") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let delivery = Delivery(headers: headers, body: String(buffer: body))
            let status = log.state.withLock { state in
                state.deliveries.append(delivery)
                return state.statuses.count > 1 ? state.statuses.removeFirst() : state.statuses[0]
            }
            return Response(status: HTTPResponse.Status(code: status))
        }
        return WebhookReceiver(log: log, server: try await LoopbackServer.start(router))
    }

    private init(log: Log, server: LoopbackServer) {
        self.log = log
        self.server = server
    }

    func stop() async {
        await server.stop()
    }
}
