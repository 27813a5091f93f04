import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RichPushCore
import RichPushStore
import ServiceLifecycle

/// `GET /api/me/stream`: the direct channel, a server-sent-event stream of the caller's `rich`, `state` and
/// `deleted` events.
///
/// Each event carries its cursor as `id:`; a client that reconnects with `Last-Event-ID` (or `?since=`) first gets
/// everything it missed from the store, then live events as they are written.
struct StreamController {
    let store: Store
    let broadcaster: EventBroadcaster
    let reader: StreamEventReader
    let metrics: GatewayMetrics
    /// Events read from the store per query while catching up.
    static let pageSize = 500

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("me/stream", use: stream)
    }

    @Sendable func stream(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.caller()
        let installationId = try await directInstallation(request, caller: caller)
        let start = try await startCursor(request)
        let logger = context.logger
        let body = ResponseBody { writer in
            let (subscription, signal) = broadcaster.subscribe(caller.username)
            metrics.openStreams.record(broadcaster.streamCount)
            defer {
                broadcaster.unsubscribe(caller.username, id: subscription)
                metrics.openStreams.record(broadcaster.streamCount)
            }
            try await withGracefulShutdownHandler {
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                var cursor = start
                while true {
                    let page = try await reader.page(
                        username: caller.username, installationId: installationId, after: cursor,
                        generation: broadcaster.generation(of: caller.username))
                    if page.count > 0 {
                        try await writer.write(page.bytes)
                        cursor = page.lastCursor
                        if page.count == Self.pageSize { continue }
                    }
                    let wake = await signal.wait()
                    if wake == .closed { break }
                    if wake == .heartbeat { try await writer.write(ByteBuffer(string: StreamEvent.heartbeat)) }
                }
            } onGracefulShutdown: {
                signal.close()
            }
            logger.debug("stream ended", metadata: ["richpush.cursor": "\(start)"])
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: body)
    }

    /// The installation named by `?installationId=`, which must be the caller's `direct` one.
    private func directInstallation(_ request: Request, caller: AuthenticatedUser) async throws -> String? {
        guard let value = request.uri.queryParameters.get("installationId") else { return nil }
        let id = String(value)
        guard let installation = try await store.installation(id: id), installation.owner == caller.username else {
            throw APIError.notFound("installation.notFound", "You have no installation \(id.prefix(64)).")
        }
        guard installation.platform == .direct else {
            throw APIError.unprocessable("installation.notDirect", "Installation \(id) uses \(installation.platform.rawValue), not direct.")
        }
        return id
    }

    /// Where the stream starts: after `Last-Event-ID`, else after `?since=`, else after the newest event (only new ones).
    private func startCursor(_ request: Request) async throws -> Int64 {
        if let header = request.headers[HTTPField.Name("Last-Event-ID")!], !header.isEmpty {
            guard let cursor = Int64(header.trimmingCharacters(in: .whitespaces)), cursor >= 0 else {
                throw APIError.badRequest("stream.invalidCursor", "Last-Event-ID must be a cursor from an earlier event.")
            }
            return cursor
        }
        if let since = try request.uri.integer("since", in: 0...Int64.max) { return since }
        return try await store.latestEventCursor()
    }
}
