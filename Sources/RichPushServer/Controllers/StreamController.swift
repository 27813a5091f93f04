import Hummingbird
import HummingbirdAuth
import Logging
import ServiceLifecycle

/// `GET /api/me/stream`: the direct channel, a server-sent-event stream of the caller's `rich`, `state` and
/// `deleted` events.
///
/// Each event carries its cursor as `id:`; a client that reconnects with `Last-Event-ID` (or `?since=`) first gets
/// everything it missed from the store, then live events as they are written.
struct StreamController {
    let stream: DirectStream

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("me/stream", use: open)
    }

    @Sendable func open(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        let (installationId, start) = try await stream.opening(
            request.uri, lastEventId: request.headers[DirectStream.lastEventId], caller: caller)
        let logger = context.logger
        let body = ResponseBody { [stream] writer in
            let (subscription, signal) = stream.subscribe(caller.username)
            defer { stream.unsubscribe(caller.username, id: subscription) }
            try await withGracefulShutdownHandler {
                try await writer.write(DirectStream.preamble)
                try await stream.pump(username: caller.username, installationId: installationId, from: start, signal: signal) {
                    try await writer.write($0)
                }
            } onGracefulShutdown: {
                signal.close()
            }
            logger.debug("stream ended", metadata: ["richpush.cursor": "\(start)"])
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: DirectStream.headers, body: body)
    }
}
