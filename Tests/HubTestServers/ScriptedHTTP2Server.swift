import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// An HTTP/2-over-TLS server that misbehaves on purpose, the ways real servers do, to test a client's transport.
public final class ScriptedHTTP2Server: Sendable {
    public enum Behaviour: Sendable {
        /// Answers 200 as soon as a request's HEADERS arrive and resets the stream with NO_ERROR without reading the
        /// body, as nginx's `return` does.
        case answerBeforeBody
        /// Turns the first connection away with GOAWAY before any stream (last stream id 0) and closes it; later
        /// connections answer every request after its body.
        case goAwayOnFirstConnection
        /// Reads every request and never answers.
        case silent
        /// Allows each stream a send window of 16 bytes, opened again by WINDOW_UPDATE as each DATA frame arrives,
        /// and answers once the whole body has come.
        case tinyStreamWindows
        /// Allows one stream at a time and answers each after its body.
        case oneStreamAtATime
        /// Answers after the body with a 429 carrying a 20 KB header, so the header block spans HEADERS and CONTINUATION:
        /// a failure, whose headers the client reads.
        case largeAnswerHeaders
        /// Pings the client on each request and answers only once the PING comes back acknowledged.
        case pingBeforeAnswering
        /// Allows `streams` streams a connection and answers each request a round trip after its body, as a far
        /// server does.
        case roundTrip(Duration, streams: Int)
        /// Allows 100 streams, and lowers that to 1 once it has answered 10 requests on the connection, as APNs has
        /// been seen to do after a rejected push; answers each request after its body.
        case lowersStreamLimitToOne
        /// Answers the first 50 requests of each connection, then sends GOAWAY naming the last of them as the last it
        /// processes and closes the connection shortly after, the streams beyond unanswered.
        case goAwayAfterFiftyRequests
    }

    public let port: Int
    private let channel: any Channel
    private let counters: Counters

    /// Requests answered with 200, over all connections.
    public var answered: Int { counters.answered.load(ordering: .relaxed) }
    /// Request body bytes received, over all connections.
    public var bodyBytes: Int { counters.bodyBytes.load(ordering: .relaxed) }
    /// Connections accepted.
    public var connections: Int { counters.connections.load(ordering: .relaxed) }
    /// Connections that have closed.
    public var closedConnections: Int { counters.closedConnections.load(ordering: .relaxed) }
    /// The most streams one connection had open at once.
    public var mostOpenStreams: Int { counters.mostOpenStreams.load(ordering: .relaxed) }
    /// RST_STREAM frames the client sent, over all connections.
    public var resetsReceived: Int { counters.resetsReceived.load(ordering: .relaxed) }
    /// Protocol errors of the client's that NIOHTTP2 caught on streams, such as a stream past the server's limit.
    public var streamErrors: Int { counters.streamErrors.load(ordering: .relaxed) }
    /// How many requests each connection answered with 200, in the order the connections were accepted.
    public var answeredByConnection: [Int] {
        counters.answeredByConnection.withLock { counts in counts.keys.sorted().map { counts[$0]! } }
    }
    /// The paths of the requests answered with 200, in the order they were answered.
    public var answeredPaths: [String] { counters.answeredPaths.withLock { $0 } }

    final class Counters: Sendable {
        let answered = Atomic<Int>(0)
        let connections = Atomic<Int>(0)
        let closedConnections = Atomic<Int>(0)
        let bodyBytes = Atomic<Int>(0)
        let mostOpenStreams = Atomic<Int>(0)
        let streamErrors = Atomic<Int>(0)
        let resetsReceived = Atomic<Int>(0)
        let answeredPaths = Mutex<[String]>([])
        let answeredByConnection = Mutex<[Int: Int]>([:])
    }

    /// Starts on a free loopback port; `applicationProtocols` is what ALPN offers (leave out `h2` to play a server
    /// that only speaks HTTP/1.1).
    public static func start(
        _ behaviour: Behaviour, authority: TestCertificateAuthority, applicationProtocols: [String] = ["h2"]
    ) async throws -> ScriptedHTTP2Server {
        var tls = authority.serverTLSConfiguration()
        tls.applicationProtocols = applicationProtocols
        let context = try NIOSSLContext(configuration: tls)
        let counters = Counters()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let connection = counters.connections.wrappingAdd(1, ordering: .relaxed).newValue
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLServerHandler(context: context))
                    // Tolerant of clients as nginx is: DATA on a stream it already answered is no attack.
                    var streams = NIOHTTP2Handler.StreamConfiguration()
                    streams.streamErrorRateLimit.maximumCount = Int(Int32.max)
                    var settings = NIOHTTP2Handler.ConnectionConfiguration()
                    settings.maximumConnectionGlitches = Int(Int32.max)
                    settings.maximumRecentlyResetStreams = 100_000
                    switch behaviour {
                    case .tinyStreamWindows: settings.initialSettings.append(HTTP2Setting(parameter: .initialWindowSize, value: 16))
                    case .oneStreamAtATime: settings.initialSettings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: 1))
                    case .roundTrip(_, let streams): settings.initialSettings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: streams))
                    case .lowersStreamLimitToOne: settings.initialSettings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: 100))
                    default: break
                    }
                    try sync.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: settings, streamConfiguration: streams))
                    try sync.addHandler(ScriptHandler(behaviour: behaviour, counters: counters, connection: connection))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ScriptedHTTP2Server(port: channel.localAddress?.port ?? 0, channel: channel, counters: counters)
    }

    private init(port: Int, channel: any Channel, counters: Counters) {
        self.port = port
        self.channel = channel
        self.counters = counters
    }

    public var endpoint: String { "https://localhost:\(port)" }

    public func stop() async {
        try? await channel.close()
    }
}

/// Plays a ``ScriptedHTTP2Server/Behaviour`` on one connection's raw frames.
private final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    let behaviour: ScriptedHTTP2Server.Behaviour
    let counters: ScriptedHTTP2Server.Counters
    /// Which connection of the server this is, from 1.
    let connection: Int
    private var turnedAway = false
    private var paths: [HTTP2StreamID: String] = [:]
    private var openStreams = 0
    private var answeredHere = 0

    init(behaviour: ScriptedHTTP2Server.Behaviour, counters: ScriptedHTTP2Server.Counters, connection: Int) {
        self.behaviour = behaviour
        self.counters = counters
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .headers(let headers) = frame.payload {
            paths[frame.streamID] = headers.headers.first(name: ":path")
            openStreams += 1
            _ = counters.mostOpenStreams.max(openStreams, ordering: .relaxed)
        }
        if case .rstStream = frame.payload { counters.resetsReceived.add(1, ordering: .relaxed) }
        switch (behaviour, frame.payload) {
        case (.answerBeforeBody, .headers):
            answer(frame.streamID, context: context)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: .rstStream(.noError))), promise: nil)
            context.flush()
        case (.goAwayOnFirstConnection, _) where connection == 1:
            guard !turnedAway else { return }
            turnedAway = true
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .rootStream, errorCode: .noError, opaqueData: nil))),
                promise: nil)
            context.flush()
            context.eventLoop.scheduleTask(in: .milliseconds(100)) { [channel = context.channel] in channel.close(promise: nil) }
        case (.goAwayOnFirstConnection, .data(let data)) where data.endStream:
            answer(frame.streamID, context: context)
            context.flush()
        case (.tinyStreamWindows, .data(let data)):
            let length = data.data.readableBytes
            counters.bodyBytes.add(length, ordering: .relaxed)
            if data.endStream {
                answer(frame.streamID, context: context)
            } else if length > 0 {
                context.write(
                    wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: .windowUpdate(windowSizeIncrement: length))), promise: nil)
            }
            context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: length))), promise: nil)
            context.flush()
        case (.oneStreamAtATime, .data(let data)) where data.endStream:
            answer(frame.streamID, context: context)
            context.flush()
        case (.largeAnswerHeaders, .data(let data)) where data.endStream:
            answer(frame.streamID, context: context, status: 429, extra: ["x-padding": String(repeating: "p", count: 20_000)])
            context.flush()
        case (.pingBeforeAnswering, .headers):
            var opaque = HTTP2PingData()
            opaque.integer = UInt64(Int32(frame.streamID))
            context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(opaque, ack: false))), promise: nil)
            context.flush()
        case (.pingBeforeAnswering, .ping(let opaque, ack: true)):
            answer(HTTP2StreamID(Int32(opaque.integer)), context: context)
            context.flush()
        case (.roundTrip(let delay, _), .data(let data)) where data.endStream:
            let (stream, loopBound) = (frame.streamID, NIOLoopBound((self, context), eventLoop: context.eventLoop))
            context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                let (handler, context) = loopBound.value
                handler.answer(stream, context: context)
                context.flush()
            }
        case (.lowersStreamLimitToOne, .data(let data)) where data.endStream:
            answer(frame.streamID, context: context)
            if answeredHere == 10 {
                let settings = HTTP2Frame.FramePayload.settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1)]))
                context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: settings)), promise: nil)
            }
            context.flush()
        case (.goAwayAfterFiftyRequests, .data(let data)) where data.endStream && answeredHere < 50:
            answer(frame.streamID, context: context)
            if answeredHere == 50 {
                let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: frame.streamID, errorCode: .noError, opaqueData: nil)
                context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)), promise: nil)
                context.eventLoop.scheduleTask(in: .milliseconds(100)) { [channel = context.channel] in channel.close(promise: nil) }
            }
            context.flush()
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Frames on streams answered before their body, or sent after GOAWAY, are the client's race with this
        // server, not the end of the connection: NIOHTTP2 has answered them with RST_STREAM already.
        if error is any NIOHTTP2Error {
            counters.streamErrors.add(1, ordering: .relaxed)
            return
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        counters.closedConnections.add(1, ordering: .relaxed)
        context.fireChannelInactive()
    }

    private func answer(_ stream: HTTP2StreamID, context: ChannelHandlerContext, status: Int = 200, extra: HPACKHeaders = [:]) {
        openStreams -= 1
        answeredHere += 1
        if status == 200 {
            counters.answered.add(1, ordering: .relaxed)
            if let path = paths[stream] { counters.answeredPaths.withLock { $0.append(path) } }
            counters.answeredByConnection.withLock { $0[connection, default: 0] += 1 }
        }
        paths[stream] = nil
        var headers: HPACKHeaders = [":status": "\(status)", "apns-id": "00000000-0000-0000-0000-000000000000"]
        headers.add(contentsOf: extra)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers, endStream: true)))), promise: nil)
    }
}
