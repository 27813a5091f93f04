import NIOCore
import NIOHTTPTypes

/// Closes a connection that holds the server without using it (the slow-header and idle-socket attacks):
///
/// - a request header that has not arrived whole `headerTimeout` after its first byte;
/// - a request body with no bytes for `idleTimeout`;
/// - a connection with no request on it for `idleTimeout`.
///
/// A request the server is answering is never cut, however long it takes: a stream is such a request.
///
/// It sits behind the HTTP decoder, where request boundaries are visible; ``ByteArrivals`` in front of the decoder
/// tells it when the first bytes of a header come in. One timer per connection, moved only when a deadline comes
/// earlier than the time it fires, so a keep-alive connection's requests cost no timer work of their own.
final class RequestDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    struct Policy: Sendable {
        var headerTimeout: TimeAmount
        var idleTimeout: TimeAmount
    }

    private let policy: Policy
    /// Requests whose header was read and whose response has not ended.
    private var openRequests = 0
    private var bodyOpen = false
    /// Bytes of a header came in while no request was open.
    private var headerStarted = false
    private var deadline: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerFiresAt = NIODeadline.distantFuture
    /// Kept for ``bytesArrived()``, which ``ByteArrivals`` calls from its own place in the pipeline.
    private var context: ChannelHandlerContext?

    init(policy: Policy) {
        self.policy = policy
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { setDeadline(context.eventLoop.now + policy.idleTimeout, context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        setDeadline(context.eventLoop.now + policy.idleTimeout, context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// Raw bytes came in, before the decoder made anything of them.
    func bytesArrived() {
        guard let context else { return }
        if bodyOpen {
            setDeadline(context.eventLoop.now + policy.idleTimeout, context: context)
        } else if openRequests == 0, !headerStarted {
            headerStarted = true
            setDeadline(context.eventLoop.now + policy.headerTimeout, context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            openRequests += 1
            headerStarted = false
            bodyOpen = true
            setDeadline(context.eventLoop.now + policy.idleTimeout, context: context)
        case .body:
            break
        case .end:
            bodyOpen = false
            // A request being answered is never cut; one answered before its end was read (the payload fast path
            // answers at its head) has its idle time running already.
            if openRequests > 0 { deadline = nil }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { responseEnded(context: context) }
        context.write(data, promise: promise)
    }

    /// An answer went to the socket below this handler (the payload fast path's on plain HTTP/1.1): it ended a
    /// request as the end of a response passing here does.
    func answeredBelow() {
        guard let context else { return }
        responseEnded(context: context)
    }

    private func responseEnded(context: ChannelHandlerContext) {
        openRequests = max(0, openRequests - 1)
        if openRequests == 0 {
            // Bytes of the next request may have come in while this one was answered.
            headerStarted = false
            setDeadline(context.eventLoop.now + policy.idleTimeout, context: context)
        }
    }

    private func setDeadline(_ new: NIODeadline, context: ChannelHandlerContext) {
        deadline = new
        guard timer == nil || timerFiresAt > new else { return }
        timer?.cancel()
        schedule(at: new, context: context)
    }

    private func schedule(at time: NIODeadline, context: ChannelHandlerContext) {
        timerFiresAt = time
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: time) {
            let (deadlines, context) = loopBound.value
            deadlines.timerFired(context: context)
        }
    }

    private func timerFired(context: ChannelHandlerContext) {
        timer = nil
        guard let deadline else { return }
        if deadline <= context.eventLoop.now {
            context.close(promise: nil)
        } else {
            schedule(at: deadline, context: context)
        }
    }
}

/// In front of the HTTP decoder: tells ``RequestDeadlines`` when bytes come in, so a header that trickles in is timed
/// from its first byte.
///
/// Over TLS the HTTP handlers join the pipeline only once the handshake has chosen the protocol, so this finds
/// ``RequestDeadlines`` when it appears; an HTTP/2 connection has none, its streams being timed by HTTP/2's own idle
/// timeout.
final class ByteArrivals: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var deadlines: RequestDeadlines?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadlines == nil { deadlines = try? context.pipeline.syncOperations.handler(type: RequestDeadlines.self) }
        deadlines?.bytesArrived()
        context.fireChannelRead(data)
    }
}
