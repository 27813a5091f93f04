import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOTLS

/// One request to send on an HTTP/2 connection: a `POST` (or other method) with its headers and whole body.
struct HTTP2Request: Sendable {
    var method = "POST"
    var path: String
    var headers: HPACKHeaders
    var body: ByteBuffer
}

/// Why an exchange failed without an answer.
enum HTTP2TransportError: Error, Equatable, CustomStringConvertible {
    /// The server never saw the request (GOAWAY below its stream, a refused stream, a connection that closed before
    /// the request was written): it is safe to send it again at once on a new connection.
    case notProcessed
    /// The connection broke while the request was in flight: the server may or may not have acted on it.
    case connectionLost
    case streamReset(HTTP2ErrorCode)
    case timedOut
    /// TLS negotiated something other than HTTP/2 (`h2`).
    case notHTTP2(String?)

    var description: String {
        switch self {
        case .notProcessed: "the connection closed before the request was processed"
        case .connectionLost: "the connection closed while the request was in flight"
        case .streamReset(let code): "the server reset the stream (\(code))"
        case .timedOut: "no answer in time"
        case .notHTTP2(let protocolName): "the server does not speak HTTP/2 over TLS (ALPN: \(protocolName ?? "none"))"
        }
    }
}

/// Runs the exchanges of one HTTP/2 connection, below `NIOHTTP2Handler` without a stream multiplexer: each request is
/// its HEADERS and DATA frames written together, and requests written in the same event-loop tick share one flush.
///
/// Writing the body with the headers matters: a server that answers on HEADERS alone (nginx's `return`) never sees a
/// stream whose body is still to come, and one write per batch rather than three per request is what lets a
/// single connection carry tens of thousands of pushes a second.
final class HTTP2ExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    typealias Completion = (Result<HubResponse, any Error>) -> Void

    private struct Exchange {
        let complete: Completion
        let deadline: NIODeadline
        var status: Int?
        var headers = HTTPHeaders()
        var body = ByteBuffer()
    }

    /// A request held back until a stream is free.
    private struct Waiting {
        let request: HTTP2Request
        let timeout: TimeAmount
        let complete: Completion
    }

    private let authority: String
    private let scheme: String
    private let maximumConcurrentStreams: Int
    private var waiting = CircularBuffer<Waiting>()
    /// Cleared once the connection cannot take new requests (GOAWAY, closed, stream ids used up).
    private let health: ConnectionHealth
    private var context: ChannelHandlerContext?
    private var exchanges: [Int: Exchange] = [:]
    private var nextStreamID = 1
    private var flushScheduled = false
    /// One timer per connection looks for overdue exchanges, rather than a timer armed and cancelled per push.
    private var sweep: RepeatedTask?
    private static let sweepInterval = TimeAmount.milliseconds(100)
    /// Response bytes received since the last connection-level WINDOW_UPDATE; NIOHTTP2 leaves that window to us
    /// when no multiplexer sits on the connection.
    private var unacknowledgedBytes = 0
    private static let windowUpdateThreshold = 32 * 1024

    init(authority: String, scheme: String, maximumConcurrentStreams: Int, health: ConnectionHealth) {
        self.authority = authority
        self.scheme = scheme
        self.maximumConcurrentStreams = max(1, maximumConcurrentStreams)
        self.health = health
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sweep?.cancel()
        sweep = nil
        self.context = nil
    }

    /// Sends every request of `batch`, at most `maximumConcurrentStreams` at once, and calls `completion` once with
    /// their answers in order; called on the connection's event loop. One hop onto the loop serves the whole batch.
    func start(_ batch: [HTTP2Request], timeout: TimeAmount, completion: @escaping ([Result<HubResponse, any Error>]) -> Void) {
        guard !batch.isEmpty else { return completion([]) }
        let answers = BatchAnswers(count: batch.count, completion: completion)
        for (index, request) in batch.enumerated() {
            let complete: Completion = { answers.set(index, $0) }
            if exchanges.count < maximumConcurrentStreams {
                open(request, timeout: timeout, complete: complete)
            } else {
                waiting.append(Waiting(request: request, timeout: timeout, complete: complete))
            }
        }
    }

    /// Opens the streams of waiting requests while there is room; on a retired connection they fail unsent.
    private func startWaiting() {
        while exchanges.count < maximumConcurrentStreams, let next = waiting.popFirst() {
            open(next.request, timeout: next.timeout, complete: next.complete)
        }
        closeIfDrained()
    }

    private func open(_ request: HTTP2Request, timeout: TimeAmount, complete: @escaping Completion) {
        guard let context, health.isUsable, nextStreamID < Int(Int32.max) else {
            health.retire()
            complete(.failure(health.failure ?? HTTP2TransportError.notProcessed))
            closeIfDrained()
            return
        }
        let id = nextStreamID
        nextStreamID += 2
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        exchanges[id] = Exchange(complete: complete, deadline: .now() + timeout)
        if sweep == nil {
            sweep = context.eventLoop.scheduleRepeatedTask(initialDelay: Self.sweepInterval, delay: Self.sweepInterval) { _ in
                loopBound.value.expireOverdue()
            }
        }

        var headers = HPACKHeaders()
        headers.reserveCapacity(4 + request.headers.count)
        headers.add(name: ":method", value: request.method)
        headers.add(name: ":scheme", value: scheme)
        headers.add(name: ":authority", value: authority)
        // A path names one device: kept out of the compression table, as nghttp2 does, where it would only push out
        // the headers every request repeats and lengthen each lookup.
        headers.add(name: ":path", value: request.path, indexing: .nonIndexable)
        headers.add(contentsOf: request.headers)
        let streamID = HTTP2StreamID(id)
        let hasBody = request.body.readableBytes > 0
        let written = context.eventLoop.makePromise(of: Void.self)
        // A stream whose frames could not be written (the connection closed or went away first) never reached the
        // server.
        written.futureResult.whenFailure { _ in loopBound.value.fail(stream: id, with: HTTP2TransportError.notProcessed) }
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: !hasBody)))),
            promise: hasBody ? nil : written)
        if hasBody {
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(request.body), endStream: true)))),
                promise: written)
        }
        scheduleFlush(context)
    }

    private func scheduleFlush(_ context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            handler.flushScheduled = false
            handler.context?.flush()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let id = Int(Int32(frame.streamID))
        switch frame.payload {
        case .headers(let headers):
            received(headers.headers, endStream: headers.endStream, stream: id)
        case .data(let data):
            acknowledge(data.data.readableBytes, context: context)
            if case .byteBuffer(var bytes) = data.data { exchanges[id]?.body.writeBuffer(&bytes) }
            if data.endStream { complete(stream: id) }
        case .rstStream(let code):
            fail(stream: id, with: code == .refusedStream ? HTTP2TransportError.notProcessed : HTTP2TransportError.streamReset(code))
        case .goAway(let lastStreamID, _, _):
            health.retire()
            let last = Int(Int32(lastStreamID))
            for stream in exchanges.keys where stream > last { fail(stream: stream, with: HTTP2TransportError.notProcessed) }
            closeIfDrained()
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent, negotiated != "h2" {
            errorCaught(context: context, error: HTTP2TransportError.notHTTP2(negotiated))
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        sweep?.cancel()
        sweep = nil
        health.retire()
        for stream in exchanges.keys { fail(stream: stream, with: HTTP2TransportError.connectionLost) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        // One stream's trouble, already answered with RST_STREAM by NIOHTTP2, or a stream opened after GOAWAY whose
        // write failed: the connection and its other exchanges go on.
        case is NIOHTTP2Errors.StreamClosed, is NIOHTTP2Errors.NoSuchStream, is NIOHTTP2Errors.CreatedStreamAfterGoaway:
            return
        default:
            break
        }
        health.retire(because: error)
        for stream in exchanges.keys { fail(stream: stream, with: error) }
        context.close(promise: nil)
    }

    private func received(_ headers: HPACKHeaders, endStream: Bool, stream id: Int) {
        guard var exchange = exchanges[id] else { return }
        if exchange.status == nil {
            guard let status = headers.first(name: ":status").flatMap(Int.init) else { return }
            // Informational answers (100 Continue) come before the real one.
            if status < 200 { return }
            exchange.status = status
        }
        for (name, value, _) in headers where !name.hasPrefix(":") { exchange.headers.add(name: name, value: value) }
        exchanges[id] = exchange
        if endStream { complete(stream: id) }
    }

    private func acknowledge(_ bytes: Int, context: ChannelHandlerContext) {
        unacknowledgedBytes += bytes
        guard unacknowledgedBytes >= Self.windowUpdateThreshold else { return }
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: unacknowledgedBytes))),
            promise: nil)
        unacknowledgedBytes = 0
        scheduleFlush(context)
    }

    private func complete(stream id: Int) {
        guard let exchange = exchanges.removeValue(forKey: id) else { return }
        defer { startWaiting() }
        guard let status = exchange.status else {
            exchange.complete(.failure(HTTP2TransportError.streamReset(.protocolError)))
            return
        }
        exchange.complete(.success(HubResponse(status: status, headers: exchange.headers, body: exchange.body)))
    }

    private func fail(stream id: Int, with error: any Error) {
        guard let exchange = exchanges.removeValue(forKey: id) else { return }
        exchange.complete(.failure(error))
        startWaiting()
    }

    /// A retired connection closes once its last exchange is over; the requests still waiting then fail unsent.
    private func closeIfDrained() {
        guard !health.isUsable, exchanges.isEmpty, waiting.isEmpty, let context, context.channel.isActive else { return }
        context.close(promise: nil)
    }

    private func expireOverdue() {
        guard let context else { return }
        let now = NIODeadline.now()
        let overdue = exchanges.filter { $0.value.deadline <= now }.keys
        guard !overdue.isEmpty else { return }
        for id in overdue {
            fail(stream: id, with: HTTP2TransportError.timedOut)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: HTTP2StreamID(id), payload: .rstStream(.cancel))), promise: nil)
        }
        scheduleFlush(context)
    }
}

/// The answers of one batch, collected on the event loop until the last arrives.
private final class BatchAnswers {
    private var answers: [Result<HubResponse, any Error>?]
    private var missing: Int
    private let completion: ([Result<HubResponse, any Error>]) -> Void

    init(count: Int, completion: @escaping ([Result<HubResponse, any Error>]) -> Void) {
        answers = Array(repeating: nil, count: count)
        missing = count
        self.completion = completion
    }

    func set(_ index: Int, _ answer: Result<HubResponse, any Error>) {
        answers[index] = answer
        missing -= 1
        if missing == 0 { completion(answers.map { $0! }) }
    }
}
