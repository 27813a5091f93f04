import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOTLS

/// One request to send on an HTTP/2 connection: a `POST` (or other method) with its headers and whole body.
struct HTTP2Request: Sendable {
    var method = "POST"
    var path: String
    /// Headers the requests of a batch may share: one array serves them all.
    var headers: [HTTP2Header]
    /// A header of this request alone (an apns-id), sent after the others without an array of its own.
    var ownHeader: HTTP2Header?
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

/// Speaks HTTP/2 (RFC 9113) on one client connection, straight on the TLS bytes: frames, HPACK, flow control and the
/// exchanges of its streams, one request and one answer each.
///
/// A general HTTP/2 stack spends most of a push's time in its per-stream machinery; a hub connection needs only this
/// much of the protocol. Frames written in one event-loop tick go out in one buffer and one flush, each request's
/// HEADERS and DATA together: a server that answers on HEADERS alone (nginx's `return`) never sees a stream whose
/// body is still to come.
final class HTTP2ExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where a request's answer goes: its place in its batch, rather than a closure allocated per request.
    struct Completion {
        let batch: BatchAnswers
        let index: Int

        func callAsFunction(_ answer: Result<HubResponse, any Error>) {
            batch.set(index, answer)
        }
    }

    struct Exchange {
        let complete: Completion
        let deadline: NIODeadline
        var status: Int?
        var headers = HTTPHeaders()
        var body = ByteBuffer()
        /// What this stream may still send (RFC 9113 §6.9.1).
        var sendWindow: Int
        /// The part of the request body flow control holds back, nil once the body has gone out whole.
        var unsent: ByteBuffer?
        var receivedSinceWindowUpdate = 0
        /// The answer came whole before the body had gone, and was given: the stream stays open, sending the rest,
        /// until the body ends or the server resets it.
        var answered = false
    }

    /// A request held back until a stream is free.
    struct Waiting {
        let request: HTTP2Request
        let deadline: NIODeadline
        let complete: Completion
    }

    static let receiveWindow = 1 << 20
    /// An answer larger than this is no hub's answer: the stream is cancelled.
    static let maximumAnswerBytes = 1 << 20
    static let maximumAnswerHeaders = 64 * 1024
    static let maximumInboundFrame = 16_384
    static let largestWindow = Int(Int32.max)

    let authority: String
    let scheme: String
    let maximumConcurrentStreams: Int
    /// Cleared once the connection cannot take new requests (GOAWAY, closed, stream ids used up).
    let health: ConnectionHealth
    var context: ChannelHandlerContext?
    var exchanges: [Int: Exchange] = [:]
    var waiting = CircularBuffer<Waiting>()
    /// Streams with body bytes waiting for a window, in the order they were opened.
    var blocked = CircularBuffer<Int>()
    var nextStreamID = 1

    // What the server's SETTINGS allow; no stream opens before they arrive.
    var peerSettingsReceived = false
    var peerMaximumConcurrentStreams = Int.max
    var peerInitialWindow = 65_535
    var peerMaximumFrame = 16_384
    var connectionSendWindow = 65_535
    var receivedSinceWindowUpdate = 0

    // Huffman coding would shorten a device path by a fifth, at more CPU per push than the bytes are worth on a
    // connection whose bandwidth is never what limits it.
    var encoder = HPACKRequestEncoder()
    /// Where each request's header block is encoded before it is framed; its storage serves every request.
    var headerBlock = ByteBuffer()
    var decoder = HPACKResponseDecoder(maximumHeaderListSize: maximumAnswerHeaders)
    /// A header block still to be completed by CONTINUATION frames: its stream, END_STREAM and bytes so far.
    var continuing: (stream: Int, endStream: Bool, block: ByteBuffer)?
    var inbound = ByteBuffer()
    var outbound = ByteBuffer()
    /// Streams whose first frames wait in `outbound`: if its write fails, the server never saw them.
    var unflushed: [Int] = []
    var flushScheduled = false
    /// One timer per connection looks for overdue exchanges, rather than a timer armed and cancelled per push.
    var sweep: RepeatedTask?
    static let sweepInterval = TimeAmount.milliseconds(100)

    init(authority: String, scheme: String, maximumConcurrentStreams: Int, health: ConnectionHealth) {
        self.authority = authority
        self.scheme = scheme
        self.maximumConcurrentStreams = max(1, maximumConcurrentStreams)
        self.health = health
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        outbound = context.channel.allocator.buffer(capacity: 64 * 1024)
        if context.channel.isActive { sendPreface() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sweep?.cancel()
        sweep = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        sendPreface()
        context.fireChannelActive()
    }

    private func sendPreface() {
        outbound.writeString(http2ClientPreface)
        outbound.writeHTTP2Settings([
            (HTTP2Setting.enablePush, 0),
            (HTTP2Setting.maxConcurrentStreams, 0),
            (HTTP2Setting.initialWindowSize, UInt32(Self.receiveWindow)),
            (HTTP2Setting.maxHeaderListSize, UInt32(Self.maximumAnswerHeaders)),
        ])
        outbound.writeHTTP2WindowUpdate(stream: 0, increment: Self.receiveWindow - 65_535)
        scheduleFlush()
    }

    /// Sends every request of `batch`, at most `maximumConcurrentStreams` at once, tells `answered` of each answer as
    /// it arrives and calls `completion` once with their answers in order; called on the connection's event loop. One
    /// hop onto the loop serves the whole batch.
    func start(
        _ batch: [HTTP2Request], timeout: TimeAmount, answered: ((Int, Result<HubResponse, any Error>) -> Void)?,
        completion: @escaping ([Result<HubResponse, any Error>]) -> Void
    ) {
        guard !batch.isEmpty else { return completion([]) }
        let answers = BatchAnswers(count: batch.count, answered: answered, completion: completion)
        let deadline = NIODeadline.now() + timeout
        for (index, request) in batch.enumerated() {
            waiting.append(Waiting(request: request, deadline: deadline, complete: Completion(batch: answers, index: index)))
        }
        startWaiting()
    }

    /// Opens the streams of waiting requests while there is room; on a retired connection they fail unsent.
    func startWaiting() {
        let limit = min(maximumConcurrentStreams, peerMaximumConcurrentStreams)
        while peerSettingsReceived || !health.isUsable, exchanges.count < limit, let next = waiting.popFirst() {
            open(next)
        }
        closeIfDrained()
    }

    private func open(_ waiting: Waiting) {
        guard let context, health.isUsable, nextStreamID < Int(Int32.max) else {
            health.retire()
            waiting.complete(.failure(health.failure ?? HTTP2TransportError.notProcessed))
            return
        }
        let id = nextStreamID
        nextStreamID += 2
        let request = waiting.request
        let hasBody = request.body.readableBytes > 0
        headerBlock.clear()
        encoder.encodeRequest(
            method: request.method, scheme: scheme, authority: authority, path: request.path, headers: request.headers,
            ownHeader: request.ownHeader, into: &headerBlock)
        writeHeaderBlock(headerBlock, stream: id, endStream: !hasBody)
        exchanges[id] = Exchange(
            complete: waiting.complete, deadline: waiting.deadline, sendWindow: peerInitialWindow, unsent: hasBody ? request.body : nil)
        unflushed.append(id)
        if hasBody, !sendBody(of: id) { blocked.append(id) }
        if sweep == nil {
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            sweep = context.eventLoop.scheduleRepeatedTask(initialDelay: Self.sweepInterval, delay: Self.sweepInterval) { _ in
                loopBound.value.expireOverdue()
            }
        }
        scheduleFlush()
    }

    /// HEADERS, and CONTINUATION frames for what does not fit the server's frame size.
    private func writeHeaderBlock(_ headerBlock: ByteBuffer, stream: Int, endStream: Bool) {
        var headerBlock = headerBlock
        var type = HTTP2FrameType.headers
        var flags = endStream ? HTTP2FrameFlag.endStream : 0
        repeat {
            let length = min(headerBlock.readableBytes, peerMaximumFrame)
            let last = length == headerBlock.readableBytes
            outbound.writeHTTP2FrameHeader(length: length, type: type, flags: flags | (last ? HTTP2FrameFlag.endHeaders : 0), stream: stream)
            var fragment = headerBlock.readSlice(length: length)!
            outbound.writeBuffer(&fragment)
            type = .continuation
            flags = 0
        } while headerBlock.readableBytes > 0
    }

    /// Writes as much of a stream's body as the windows allow; true once it has all gone. A stream already answered
    /// ends with its body.
    func sendBody(of stream: Int) -> Bool {
        guard var exchange = exchanges[stream], var unsent = exchange.unsent else { return true }
        defer { if exchange.answered, exchange.unsent == nil { exchanges[stream] = nil } }
        while unsent.readableBytes > 0 {
            let length = min(unsent.readableBytes, exchange.sendWindow, connectionSendWindow, peerMaximumFrame)
            guard length > 0 else { break }
            let last = length == unsent.readableBytes
            outbound.writeHTTP2FrameHeader(length: length, type: .data, flags: last ? HTTP2FrameFlag.endStream : 0, stream: stream)
            var chunk = unsent.readSlice(length: length)!
            outbound.writeBuffer(&chunk)
            exchange.sendWindow -= length
            connectionSendWindow -= length
        }
        exchange.unsent = unsent.readableBytes > 0 ? unsent : nil
        exchanges[stream] = exchange
        return exchange.unsent == nil
    }

    /// Sends the bodies that wait for a window, in order, as far as the windows now allow.
    func resumeBlocked() {
        guard !blocked.isEmpty else { return }
        var stillBlocked = CircularBuffer<Int>()
        let open = exchanges.count
        while let stream = blocked.popFirst() {
            if exchanges[stream] != nil, !sendBody(of: stream) { stillBlocked.append(stream) }
        }
        blocked = stillBlocked
        scheduleFlush()
        if exchanges.count < open { startWaiting() }
    }

    /// Flushes what this tick wrote once the tick is over; nothing once the handler is gone.
    func scheduleFlush() {
        guard let context, !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute { loopBound.value.flush() }
    }

    private func flush() {
        flushScheduled = false
        guard let context, outbound.readableBytes > 0 else { return }
        let streams = unflushed
        unflushed.removeAll(keepingCapacity: true)
        let written = context.eventLoop.makePromise(of: Void.self)
        if !streams.isEmpty {
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            written.futureResult.whenFailure { _ in
                for stream in streams { loopBound.value.fail(stream: stream, with: HTTP2TransportError.notProcessed) }
            }
        }
        context.writeAndFlush(wrapOutboundOut(outbound), promise: written)
        outbound = context.channel.allocator.buffer(capacity: 64 * 1024)
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
        while let next = waiting.popFirst() { next.complete(.failure(health.failure ?? HTTP2TransportError.notProcessed)) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        health.retire(because: error)
        for stream in exchanges.keys { fail(stream: stream, with: error) }
        while let next = waiting.popFirst() { next.complete(.failure(error)) }
        context.close(promise: nil)
    }

    /// Answers a protocol violation with GOAWAY and closes the connection.
    func abandon(_ error: HTTP2ConnectionError) {
        guard let context else { return }
        var goAway = context.channel.allocator.buffer(capacity: 17)
        goAway.writeHTTP2GoAway(lastStream: 0, code: error.code)
        context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
        errorCaught(context: context, error: error)
    }

    func complete(stream id: Int) {
        guard let exchange = exchanges[id], !exchange.answered else { return }
        guard let status = exchange.status else {
            fail(stream: id, with: HTTP2TransportError.streamReset(.protocolError))
            return
        }
        let answer = HubResponse(status: status, headers: exchange.headers, body: exchange.body)
        // Answered before its body went whole (RFC 9113 §8.1): a server that wants no more resets the stream with
        // NO_ERROR; until it does the rest goes. Resetting it here instead would send a reset for every such push, and
        // servers take a stream of resets for an attack (nginx and NIOHTTP2 close the connection).
        if exchange.unsent != nil {
            exchanges[id]?.answered = true
            exchanges[id]?.body = ByteBuffer()
            exchange.complete(.success(answer))
            return
        }
        exchanges[id] = nil
        exchange.complete(.success(answer))
        startWaiting()
    }

    /// The stream's exchange is over without an answer, unless it was answered already.
    func fail(stream id: Int, with error: any Error) {
        guard let exchange = exchanges.removeValue(forKey: id) else { return }
        if !exchange.answered { exchange.complete(.failure(error)) }
        startWaiting()
    }

    /// Keeps the waiting requests that streams free now under `limit` take, and answers the rest as never processed,
    /// so the session sends them on another connection.
    func giveBackWaiting(beyond limit: Int) {
        let kept = max(0, limit - exchanges.count)
        while waiting.count > kept, let last = waiting.popLast() { last.complete(.failure(HTTP2TransportError.notProcessed)) }
    }

    /// A retired connection closes once its last exchange is over.
    func closeIfDrained() {
        guard !health.isUsable, exchanges.isEmpty, waiting.isEmpty, let context, context.channel.isActive else { return }
        context.close(promise: nil)
    }

    private func expireOverdue() {
        let now = NIODeadline.now()
        if waiting.contains(where: { $0.deadline <= now }) {
            let overdue = waiting.filter { $0.deadline <= now }
            waiting.removeAll { $0.deadline <= now }
            for request in overdue { request.complete(.failure(HTTP2TransportError.timedOut)) }
        }
        let overdue = exchanges.filter { $0.value.deadline <= now }.keys
        guard !overdue.isEmpty else { return }
        for id in overdue {
            fail(stream: id, with: HTTP2TransportError.timedOut)
            outbound.writeHTTP2ResetStream(id, code: .cancel)
        }
        scheduleFlush()
    }
}
