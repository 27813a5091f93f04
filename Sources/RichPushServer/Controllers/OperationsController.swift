import Hummingbird
import Logging
import NIOCore
import RichPushCore
import RichPushStore

/// Liveness, readiness and metrics, without authentication.
struct OperationsController {
    let store: Store
    let metrics: GatewayMetrics
    let broadcaster: EventBroadcaster

    func addRoutes(to router: Router<RichPushRequestContext>) {
        router.get("health", use: health)
        router.get("health/ready", use: ready)
        router.get("metrics", use: metrics)
    }

    @Sendable func health(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        HealthJSON(status: "ok")
    }

    @Sendable func ready(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        do {
            try await store.ping()
            return HealthJSON(status: "ready")
        } catch {
            context.logger.warning("store unavailable", metadata: ["error": "\(error)"])
            throw APIError.storeUnavailable
        }
    }

    @Sendable func metrics(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        metrics.streamsOpen(broadcaster.streamCount)
        let text = metrics.exposition()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: text)))
    }
}
