import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import RichPushCore
import RichPushStore

/// What one open stream (`GET /api/me/stream`) does, whichever path carries it: the router's response body, or the
/// stream fast path's channel. It checks the request, then writes the events after its cursor, each notice's events
/// and a heartbeat each beat, until its signal closes.
struct DirectStream: Sendable {
    let events: any EventLog
    let installations: any InstallationRepository
    let broadcaster: EventBroadcaster
    let reader: StreamEventReader
    let metrics: GatewayMetrics
    /// Events read from the store per query while catching up.
    static let pageSize = 500

    /// The headers of every stream's answer.
    static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no",
    ]
    /// The first bytes: how long a client waits before it reconnects.
    static let preamble = ByteBuffer(string: "retry: 2000\n\n")
    static let lastEventId = HTTPField.Name("Last-Event-ID")!

    /// Where a stream of `caller` starts and for which installation, from its query and `Last-Event-ID`; refuses
    /// what the caller may not have with an ``APIError``.
    func opening(_ uri: URI, lastEventId: String?, caller: AuthenticatedUser) async throws -> (installationId: String?, cursor: Int64) {
        let installationId = try await directInstallation(uri.queryParameters.get("installationId").map { String($0) }, of: caller)
        return (installationId, try await startCursor(uri, lastEventId: lastEventId))
    }

    /// The installation named by `?installationId=`, which must be the caller's `direct` one.
    private func directInstallation(_ id: String?, of caller: AuthenticatedUser) async throws -> String? {
        guard let id else { return nil }
        guard let installation = try await installations.installation(id: id), installation.owner == caller.username else {
            throw APIError.notFound("installation.notFound", "You have no installation \(id.prefix(64)).")
        }
        guard installation.platform == .direct else {
            throw APIError.unprocessable("installation.notDirect", "Installation \(id) uses \(installation.platform.rawValue), not direct.")
        }
        return id
    }

    /// Where the stream starts: after `Last-Event-ID`, else after `?since=`, else after the newest event (only new ones).
    private func startCursor(_ uri: URI, lastEventId: String?) async throws -> Int64 {
        if let lastEventId, !lastEventId.isEmpty {
            guard let cursor = Int64(lastEventId.trimmingCharacters(in: .whitespaces)), cursor >= 0 else {
                throw APIError.badRequest("stream.invalidCursor", "Last-Event-ID must be a cursor from an earlier event.")
            }
            return cursor
        }
        if let since = try uri.integer("since", in: 0...Int64.max) { return since }
        return try await events.latestCursor()
    }

    /// Registers a stream of `username`: its signal wakes it, and closes it when a newer stream of the user takes its
    /// place.
    func subscribe(_ username: String) -> (id: UInt64, signal: StreamSignal) {
        let subscription = broadcaster.subscribe(username)
        metrics.streamsOpen(broadcaster.streamCount)
        return subscription
    }

    func unsubscribe(_ username: String, id: UInt64) {
        broadcaster.unsubscribe(username, id: id)
        metrics.streamsOpen(broadcaster.streamCount)
    }

    /// Writes the stream's events from `cursor` on, and a heartbeat on each beat, until `signal` closes.
    func pump(
        username: String, installationId: String?, from cursor: Int64, signal: StreamSignal, write: (ByteBuffer) async throws -> Void
    ) async throws {
        var cursor = cursor
        while true {
            cursor = try await catchUp(username: username, installationId: installationId, from: cursor, write: write)
            let wake = await signal.wait()
            if wake == .closed { return }
            if wake == .heartbeat { try await write(Self.heartbeat) }
        }
    }

    /// Writes the events stored after `cursor`, page by page, and returns the cursor after the last.
    func catchUp(username: String, installationId: String?, from cursor: Int64, write: (ByteBuffer) async throws -> Void) async throws
        -> Int64
    {
        var cursor = cursor
        while true {
            let page = try await reader.page(
                username: username, installationId: installationId, after: cursor, generation: broadcaster.generation(of: username))
            guard page.count > 0 else { return cursor }
            try await write(page.bytes)
            cursor = page.lastCursor
            if page.count < Self.pageSize { return cursor }
        }
    }

    static let heartbeat = ByteBuffer(string: StreamEvent.heartbeat)
}
