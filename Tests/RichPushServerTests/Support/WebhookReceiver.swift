import Foundation
import HubTestServers
import Hummingbird
import NIOCore
import Synchronization

/// A receiver on loopback of webhooks and of the requests of `http` actions: keeps every request it gets at `/hook`,
/// method, headers and body as they came, and answers each with the next status of its script (the last one once the
/// script runs out). With a certificate authority it speaks HTTPS.
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        var method: String
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

    private let scheme: String

    var url: String { "\(scheme)://127.0.0.1:\(server.port)/hook" }
    var deliveries: [Delivery] { log.state.withLock { $0.deliveries } }
    /// Every event received, in order, each as often as it came.
    var events: [[String: Any]] { deliveries.flatMap(\.events) }

    static func start(answering statuses: [Int] = [204], tls authority: TestCertificateAuthority? = nil) async throws -> WebhookReceiver {
        let log = Log(statuses: statuses)
        let router = Router(context: LoopbackContext.self)
        router.on("hook", method: .get, use: record)
        router.on("hook", method: .post, use: record)
        @Sendable func record(_ request: Request, _: LoopbackContext) async throws -> Response {
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let delivery = Delivery(method: request.method.rawValue, headers: headers, body: String(buffer: body))
            let status = log.state.withLock { state in
                state.deliveries.append(delivery)
                return state.statuses.count > 1 ? state.statuses.removeFirst() : state.statuses[0]
            }
            return Response(status: HTTPResponse.Status(code: status))
        }
        let server = try await LoopbackServer.start(router, tls: authority?.serverTLSConfiguration())
        return WebhookReceiver(log: log, server: server, scheme: authority == nil ? "http" : "https")
    }

    private init(log: Log, server: LoopbackServer, scheme: String) {
        self.log = log
        self.server = server
        self.scheme = scheme
    }

    func stop() async {
        await server.stop()
    }
}
