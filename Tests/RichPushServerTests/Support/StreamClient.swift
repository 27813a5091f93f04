import AsyncHTTPClient
import Foundation
import GatewayTesting
import NIOCore
import NIOHTTP1
import RichPushCore
import Synchronization
import TestSupport

/// A device's open `/api/me/stream`, read with async-http-client; ``next(within:)`` takes the events in order.
final class StreamClient: Sendable {
    private let received = Mutex<(events: [ServerSentEvent], taken: Int, ended: Bool, endedWhole: Bool)>(([], 0, false, false))
    private let heartbeats = Atomic<Int>(0)
    private let task = Mutex<Task<Void, Never>?>(nil)
    let status = Mutex<Int?>(nil)

    init(port: Int, user: Credentials, query: String = "", lastEventId: String? = nil) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/me/stream\(query)")
        request.headers.add(name: "Authorization", value: user.authorization)
        if let lastEventId { request.headers.add(name: "Last-Event-ID", value: lastEventId) }
        let runner = Task { await self.read(request) }
        task.withLock { $0 = runner }
    }

    private func read(_ request: HTTPClientRequest) async {
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            status.withLock { $0 = Int(response.status.code) }
            var parser = ServerSentEventParser()
            for try await chunk in response.body {
                let before = parser.commentCount
                let events = parser.feed(chunk.readableBytesView)
                received.withLock { $0.events += events }
                heartbeats.add(parser.commentCount - before, ordering: .relaxed)
            }
            received.withLock { $0.endedWhole = true }
        } catch {}
        received.withLock { $0.ended = true }
    }

    /// How many heartbeat comments arrived.
    var heartbeatCount: Int { heartbeats.load(ordering: .relaxed) }

    /// The next event, or nil when none arrives within `timeout` or the stream ended.
    func next(within timeout: Duration = .seconds(10)) async -> ServerSentEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (event, ended) = received.withLock { state -> (ServerSentEvent?, Bool) in
                guard state.taken < state.events.count else { return (nil, state.ended) }
                state.taken += 1
                return (state.events[state.taken - 1], false)
            }
            if let event { return event }
            if ended { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Whether the server ended the stream.
    var hasEnded: Bool { received.withLock { $0.ended } }

    /// Whether the stream's answer ended as HTTP ends one, not cut off with the connection.
    var endedWhole: Bool { received.withLock { $0.endedWhole } }

    /// Waits until the server answered the request, so events created afterwards are live ones.
    func waitUntilOpen() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while status.withLock({ $0 }) == nil {
            guard ContinuousClock.now < deadline else { throw TestFailure("the stream did not open") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func close() {
        task.withLock { $0?.cancel() }
    }
}
