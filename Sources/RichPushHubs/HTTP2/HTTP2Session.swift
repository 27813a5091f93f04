import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import RichPushCore
import Synchronization

// The hubs' HTTP/2 client is written by hand over SwiftNIO's TLS (frames in HTTP2Frame.swift, HPACK in
// HPACKRequestEncoder.swift and HPACKResponseDecoder.swift, streams and flow control in HTTP2ExchangeHandler.swift),
// not on swift-nio-http2's multiplexer or async-http-client: a fan-out writes thousands of one-request streams, and a
// channel and a pipeline per stream, a header table walked with case-insensitive comparisons per header and an
// allocation per answer's header were most of what a push cost. Written this way the fan-out keeps near h2load's
// pace (README, Performance). NIOHTTP2 supplies the error codes, and the tests check the coders
// against NIOHPACK's.

/// Whether a connection still takes new requests, readable from any thread.
final class ConnectionHealth: Sendable {
    private let usable = Atomic<Bool>(true)
    private let reason = Mutex<(any Error)?>(nil)

    var isUsable: Bool { usable.load(ordering: .acquiring) }

    /// Why the connection stopped, when an error stopped it.
    var failure: (any Error)? { reason.withLock { $0 } }

    func retire(because error: (any Error)? = nil) {
        if let error { reason.withLock { $0 = $0 ?? error } }
        usable.store(false, ordering: .releasing)
    }
}

/// One long-lived HTTP/2 connection to a hub's origin, opened on first use and opened anew when the server ends it
/// (GOAWAY, idle close, a network error). Requests multiplex on it as streams, as APNs asks of providers.
final class HTTP2Session: Sendable {
    private struct Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<HTTP2ExchangeHandler>
        let health: ConnectionHealth
    }

    private enum State {
        case idle
        case connecting(EventLoopFuture<Connection>)
        case connected(Connection)
        case shutDown
    }

    private let host: String
    private let port: Int
    private let maximumConcurrentStreams: Int
    private let authority: String
    private let tls: NIOSSLContext?
    private let group: any EventLoopGroup
    private let state = Mutex<State>(.idle)

    /// A session to `baseURL` (`https://host[:port]`, or `http://` for HTTP/2 without TLS), trusting the system's
    /// CAs plus `caFile`, with at most `maximumConcurrentStreams` requests in flight (fewer if the server says so).
    init(
        baseURL: String, caFile: String?, maximumConcurrentStreams: Int = 256,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(HubConfigurationError) {
        guard let url = URL(string: baseURL), let host = url.host, let scheme = url.scheme?.lowercased() else {
            throw HubConfigurationError("'\(baseURL)' is not an http or https URL")
        }
        let secure = scheme == "https"
        self.host = host
        self.port = url.port ?? (secure ? 443 : 80)
        self.authority = url.port.map { "\(host):\($0)" } ?? host
        self.maximumConcurrentStreams = maximumConcurrentStreams
        self.group = group
        if secure {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["h2"]
            if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
            do {
                self.tls = try NIOSSLContext(configuration: configuration)
            } catch {
                throw HubConfigurationError("\(ServeHubSettings.tlsCAFile.name): cannot use \(caFile ?? "the system's CAs"): \(error)")
            }
        } else {
            self.tls = nil
        }
    }

    /// Sends every request and collects their answers, in order. A request the server never processed is sent again
    /// on a new connection, up to three times in all; any other failure to get an answer is that request's failure.
    ///
    /// `answered` hears of each request's final answer as it arrives, with the request's index, on the connection's
    /// event loop.
    func send(
        _ requests: [HTTP2Request], timeout: TimeAmount = .seconds(30),
        answered: (@Sendable (Int, Result<HubResponse, any Error>) -> Void)? = nil
    ) async -> [Result<HubResponse, any Error>] {
        var answers = [Result<HubResponse, any Error>?](repeating: nil, count: requests.count)
        var pending = Array(requests.indices)
        for attempt in 1...3 where !pending.isEmpty {
            let indices = pending
            let lastAttempt = attempt == 3
            var answeredInRound: (@Sendable (Int, Result<HubResponse, any Error>) -> Void)?
            if let answered {
                answeredInRound = { position, answer in
                    if lastAttempt || !Self.goesAgain(answer) { answered(indices[position], answer) }
                }
            }
            let round = await exchange(indices.map { requests[$0] }, timeout: timeout, answered: answeredInRound)
            var unprocessed: [Int] = []
            for (index, answer) in zip(indices, round) {
                if !lastAttempt && Self.goesAgain(answer) {
                    unprocessed.append(index)
                } else {
                    answers[index] = answer
                }
            }
            pending = unprocessed
        }
        return answers.map { $0! }
    }

    /// Whether the server never processed the request, so it goes again on a new connection.
    private static func goesAgain(_ answer: Result<HubResponse, any Error>) -> Bool {
        guard case .failure(let error) = answer else { return false }
        return error as? HTTP2TransportError == .notProcessed
    }

    private func exchange(
        _ requests: [HTTP2Request], timeout: TimeAmount, answered: (@Sendable (Int, Result<HubResponse, any Error>) -> Void)?
    ) async -> [Result<HubResponse, any Error>] {
        let connection: Connection
        do {
            connection = try await usableConnection()
        } catch {
            return requests.map { _ in .failure(error) }
        }
        let promise = connection.channel.eventLoop.makePromise(of: [Result<HubResponse, any Error>].self)
        connection.channel.eventLoop.execute {
            connection.handler.value.start(requests, timeout: timeout, answered: answered) { promise.succeed($0) }
        }
        // The handler answers every request of the batch, one way or another; the promise never fails.
        return (try? await promise.futureResult.get()) ?? requests.map { _ in .failure(HTTP2TransportError.connectionLost) }
    }

    private func usableConnection() async throws -> Connection {
        let future: EventLoopFuture<Connection> = try state.withLock { state in
            switch state {
            case .connected(let connection) where connection.health.isUsable:
                return group.next().makeSucceededFuture(connection)
            case .connecting(let future):
                return future
            case .shutDown:
                throw HTTP2TransportError.notProcessed
            case .idle, .connected:
                // A retired connection is left to finish its exchanges; its handler closes it after the last one.
                let future = connect()
                state = .connecting(future)
                future.whenComplete { [weak self] result in self?.settle(future, with: result) }
                return future
            }
        }
        return try await future.get()
    }

    private func settle(_ future: EventLoopFuture<Connection>, with result: Result<Connection, any Error>) {
        state.withLock { state in
            guard case .connecting(let pending) = state, pending === future else {
                if case .success(let connection) = result, case .shutDown = state { connection.channel.close(promise: nil) }
                return
            }
            switch result {
            case .success(let connection): state = .connected(connection)
            case .failure: state = .idle
            }
        }
    }

    private func connect() -> EventLoopFuture<Connection> {
        let (tls, host, authority, maximumConcurrentStreams) = (self.tls, self.host, self.authority, self.maximumConcurrentStreams)
        let health = ConnectionHealth()
        return ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        // SNI takes a name, never an address literal; the certificate is checked against either.
                        let name = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
                        try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: name))
                    }
                    try sync.addHandler(
                        HTTP2ExchangeHandler(
                            authority: authority, scheme: tls == nil ? "http" : "https", maximumConcurrentStreams: maximumConcurrentStreams,
                            health: health))
                }
            }
            .connect(host: host, port: port)
            .flatMapThrowing { channel in
                let handler = try channel.pipeline.syncOperations.handler(type: HTTP2ExchangeHandler.self)
                return Connection(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop), health: health)
            }
    }

    /// Closes the connection; requests in flight fail.
    func shutdown() async {
        let previous = state.withLock { state in
            defer { state = .shutDown }
            return state
        }
        switch previous {
        case .connected(let connection): try? await connection.channel.close()
        case .connecting(let future): try? await future.get().channel.close()
        case .idle, .shutDown: break
        }
    }
}
