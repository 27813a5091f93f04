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
// pace (docs/performance.md). NIOHTTP2 supplies the error codes, and the tests check the coders
// against NIOHPACK's.

/// A pool of long-lived HTTP/2 connections to a hub's origin, each opened when requests need it and opened anew when
/// the server ends one (GOAWAY, idle close, a network error). Requests multiplex on them as streams, as APNs asks of
/// providers.
///
/// One connection carries at most its stream limit in flight, so at a round trip of 40 ms one connection of 256
/// streams carries 6,400 pushes a second, whatever the client's CPU. A batch that finds every stream taken (a far
/// hub keeps them taken a round trip long) opens another connection, up to `maximumConnections`, rather than
/// waiting for streams to free; no round trip is measured, since waiting for a stream is what a long one causes. A
/// connection past the first that has carried nothing for ``idleLimit`` is closed.
final class HTTP2Session: Sendable {
    private struct Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<HTTP2ExchangeHandler>
    }

    /// A connection opened or being opened; its health is known before its channel is.
    private struct Slot: Sendable {
        let id: Int
        let health: ConnectionHealth
        let connection: EventLoopFuture<Connection>
    }

    /// A slot with the session's account of it.
    private struct Pooled {
        let slot: Slot
        /// Requests shared to it whose exchange is not over: in flight, or waiting for one of its streams.
        var held = 0
        /// When it last came to hold nothing.
        var idleSince: ContinuousClock.Instant

        var room: Int { slot.health.streamLimit - held }
    }

    private struct State {
        var pool: [Pooled] = []
        var nextSlot = 0
        var shutDown = false
        /// The streams the server last allowed a connection, which a new connection is counted to have until its
        /// own SETTINGS come: sharing a batch out as though it had more would give most of it back at once.
        var streamLimit: Int?
    }

    private let host: String
    private let port: Int
    /// Where connections go: the host itself, or the address judged for it, the certificate still checked for `host`.
    private let address: String
    private let maximumConcurrentStreams: Int
    private let maximumConnections: Int
    private let authority: String
    private let tls: NIOSSLContext?
    private let group: any EventLoopGroup
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())
    /// Looks for idle connections while no batch does.
    private let idleSweep: Mutex<RepeatedTask?> = Mutex(nil)
    static let idleLimit: Duration = .seconds(60)

    /// A session to `baseURL` (`https://host[:port]`, or `http://` for HTTP/2 without TLS), trusting the system's
    /// CAs plus `caFile`, with at most `maximumConcurrentStreams` requests in flight on each connection (fewer if the
    /// server says so) and at most `maximumConnections` connections; `now` tells the time idle connections are
    /// judged by. Connections go to `address` when given, an address literal of the host's.
    init(
        baseURL: String, caFile: String?, maximumConcurrentStreams: Int = 256, maximumConnections: Int = 1, address: String? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) throws(HubConfigurationError) {
        guard let url = URL(string: baseURL), let host = url.host, let scheme = url.scheme?.lowercased() else {
            throw HubConfigurationError("'\(baseURL)' is not an http or https URL")
        }
        let secure = scheme == "https"
        let named = host.contains(":") ? "[\(host)]" : host
        self.host = host
        self.port = url.port ?? (secure ? 443 : 80)
        self.address = address ?? host
        self.authority = url.port.map { "\(named):\($0)" } ?? named
        self.maximumConcurrentStreams = max(1, maximumConcurrentStreams)
        self.maximumConnections = max(1, maximumConnections)
        self.group = group
        self.now = now
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

    /// Connections that take requests now, open or being opened.
    var usableConnections: Int { state.withLock { $0.pool.count { $0.slot.health.isUsable } } }

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

    /// Shares `requests` out over the connections and sends each share on its own, at once.
    private func exchange(
        _ requests: [HTTP2Request], timeout: TimeAmount, answered: (@Sendable (Int, Result<HubResponse, any Error>) -> Void)?
    ) async -> [Result<HubResponse, any Error>] {
        let shares: [(slot: Slot, range: Range<Int>)]
        do {
            shares = try share(requests.count)
        } catch {
            return Self.failAll(requests.count, with: error, answered: answered)
        }
        if shares.count == 1, let (slot, _) = shares.first {
            defer { release(requests.count, from: slot) }
            return await exchange(requests, on: slot, timeout: timeout, answered: answered)
        }
        var answers = [Result<HubResponse, any Error>?](repeating: nil, count: requests.count)
        await withTaskGroup(of: (Range<Int>, [Result<HubResponse, any Error>]).self) { group in
            for (slot, range) in shares {
                let share = Array(requests[range])
                let told = answered.map { answered in
                    { @Sendable (position: Int, answer: Result<HubResponse, any Error>) in answered(range.lowerBound + position, answer) }
                }
                group.addTask {
                    defer { self.release(share.count, from: slot) }
                    return (range, await self.exchange(share, on: slot, timeout: timeout, answered: told))
                }
            }
            for await (range, answered) in group {
                for (offset, answer) in answered.enumerated() { answers[range.lowerBound + offset] = answer }
            }
        }
        return answers.map { $0! }
    }

    /// Which connection takes which of `count` requests, each counted as held by its connection: the free streams of
    /// the connections opened first, then new connections while the rest would wait, then an even share of the rest
    /// on each connection, where they wait for its streams.
    private func share(_ count: Int) throws -> [(slot: Slot, range: Range<Int>)] {
        try state.withLock { state in
            guard !state.shutDown else { throw HTTP2TransportError.notProcessed }
            for pooled in state.pool {
                if let advertised = pooled.slot.health.advertisedLimit { state.streamLimit = min(maximumConcurrentStreams, advertised) }
            }
            prune(&state)
            var shares: [(slot: Slot, range: Range<Int>)] = []
            var given = 0
            func give(_ position: Int, _ wanted: Int) {
                let taken = min(wanted, count - given)
                guard taken > 0 else { return }
                state.pool[position].held += taken
                shares.append((state.pool[position].slot, given..<(given + taken)))
                given += taken
            }
            for position in state.pool.indices where state.pool[position].slot.health.isUsable {
                give(position, state.pool[position].room)
            }
            // Counted before opening any: a connection that fails at once is retired at once, and must not make room
            // for another.
            let openable = maximumConnections - state.pool.count { $0.slot.health.isUsable }
            for _ in 0..<max(0, openable) where given < count {
                state.pool.append(Pooled(slot: open(&state), idleSince: now()))
                give(state.pool.count - 1, state.pool[state.pool.count - 1].room)
            }
            // Every stream is taken: the rest wait, spread over the connections so that each has as many waiting as
            // the others, not heaped on one.
            let usable = state.pool.indices.filter { state.pool[$0].slot.health.isUsable }.sorted { state.pool[$0].room > state.pool[$1].room }
            if !usable.isEmpty {
                let each = (count - given + usable.count - 1) / usable.count
                for position in usable { give(position, each) }
            }
            // None usable: the last connection opened failed as it opened, and its failure is the answer.
            if given < count { give(state.pool.count - 1, count - given) }
            return shares
        }
    }

    /// A share of `count` requests on `slot` is over.
    private func release(_ count: Int, from slot: Slot) {
        let instant = now()
        state.withLock { state in
            guard let position = state.pool.firstIndex(where: { $0.slot.id == slot.id }) else { return }
            state.pool[position].held -= count
            if state.pool[position].held == 0 { state.pool[position].idleSince = instant }
        }
    }

    /// Retires the connections past the first that have held nothing for ``idleLimit`` (each closes on its loop), and
    /// leaves out of the pool every retired connection whose shares are over.
    private func prune(_ state: inout State) {
        let instant = now()
        let usable = state.pool.indices.filter { state.pool[$0].slot.health.isUsable }
        for position in usable.dropFirst() where state.pool[position].held == 0 && instant - state.pool[position].idleSince >= Self.idleLimit {
            let slot = state.pool[position].slot
            slot.health.retire()
            slot.connection.whenSuccess { connection in
                connection.channel.eventLoop.execute { connection.handler.value.closeIfDrained() }
            }
        }
        state.pool.removeAll { !$0.slot.health.isUsable && $0.held == 0 }
    }

    /// Closes the connections that have been idle for ``idleLimit``, but the first; sharing a batch out does too.
    func closeIdleConnections() {
        state.withLock { prune(&$0) }
    }

    private func exchange(
        _ requests: [HTTP2Request], on slot: Slot, timeout: TimeAmount,
        answered: (@Sendable (Int, Result<HubResponse, any Error>) -> Void)?
    ) async -> [Result<HubResponse, any Error>] {
        let connection: Connection
        do {
            connection = try await slot.connection.get()
        } catch {
            return Self.failAll(requests.count, with: error, answered: answered)
        }
        let promise = connection.channel.eventLoop.makePromise(of: [Result<HubResponse, any Error>].self)
        connection.channel.eventLoop.execute {
            connection.handler.value.start(requests, timeout: timeout, answered: answered) { promise.succeed($0) }
        }
        // The handler answers every request of the batch, one way or another; the promise never fails.
        return (try? await promise.futureResult.get()) ?? requests.map { _ in .failure(HTTP2TransportError.connectionLost) }
    }

    /// `count` failures with `error`, each told to `answered` as it would be of an answer.
    private static func failAll(
        _ count: Int, with error: any Error, answered: (@Sendable (Int, Result<HubResponse, any Error>) -> Void)?
    ) -> [Result<HubResponse, any Error>] {
        (0..<count).map { index in
            answered?(index, .failure(error))
            return .failure(error)
        }
    }

    /// Starts a connection, and the sweep for idle connections with the second.
    private func open(_ state: inout State) -> Slot {
        defer { state.nextSlot += 1 }
        if state.pool.count == 1 { startIdleSweep() }
        let (tls, host, address, port, authority, maximumConcurrentStreams) = (
            self.tls, self.host, self.address, self.port, self.authority, self.maximumConcurrentStreams
        )
        let health = ConnectionHealth(streamLimit: state.streamLimit ?? maximumConcurrentStreams)
        let connection = ClientBootstrap(group: group)
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
            .connect(host: address, port: port)
            .flatMapThrowing { channel in
                let handler = try channel.pipeline.syncOperations.handler(type: HTTP2ExchangeHandler.self)
                return Connection(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
            }
        // A connection that could not be made takes nothing more; it leaves the pool once its shares are over.
        connection.whenFailure { error in health.retire(because: error) }
        return Slot(id: state.nextSlot, health: health, connection: connection)
    }

    private func startIdleSweep() {
        idleSweep.withLock { sweep in
            guard sweep == nil else { return }
            let interval = TimeAmount.seconds(Int64(Self.idleLimit.components.seconds / 4))
            sweep = group.next().scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
                self?.closeIdleConnections()
            }
        }
    }

    /// Closes every connection; requests in flight fail.
    func shutdown() async {
        idleSweep.withLock { $0?.cancel() }
        let pool = state.withLock { state in
            state.shutDown = true
            defer { state.pool = [] }
            return state.pool
        }
        for pooled in pool {
            pooled.slot.health.retire()
            try? await pooled.slot.connection.get().channel.close()
        }
    }
}
