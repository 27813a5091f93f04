import NIOCore
import NIOHTTP1

/// The response encoder of a plain HTTP/1.1 connection, in place of NIOHTTP1's `HTTPResponseEncoder` and with its
/// framing (RFC 9112 §6): a `Content-Length` is kept and `Transfer-Encoding` dropped beside it; a body of unknown
/// length is chunked; `1xx`, `204`, `304` and the answer to `CONNECT` carry neither; the answer to `HEAD` keeps the
/// headers a `GET` would have and sends no body.
///
/// Written here rather than taken from NIOHTTP1 because of the payload fetch, the request every device makes after
/// every push: NIO's encoder copies every head's header list to frame it (its `remove` makes the list unique even when
/// nothing is removed) and serializes it again for each answer, and only NIO's own decoder, set up with it, may tell it
/// which requests were `HEAD`, so an answer written below it would leave it one request behind for the rest of the
/// connection. This encoder learns each request's method as the request passes it, and takes an answer whose head is
/// already bytes (``writeAnswer(_:body:promise:)``), as the payload fast path keeps the head of an image's answer, or
/// a whole answer in one file (``writeWholeAnswer(_:promise:)``).
final class HTTP1ResponseEncoder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = IOData

    /// How the body of the response being written goes on the wire.
    enum Framing {
        /// As it is: its length is in the head, or the connection's end ends it (HTTP/1.0).
        case asItIs
        case chunked
        /// Not at all: the answer to `HEAD` or `CONNECT`.
        case none
    }

    /// The methods of the requests not answered yet, oldest first; more than one only when a client pipelines.
    private var pendingMethods = CircularBuffer<HTTPMethod>(initialCapacity: 2)
    private var framing = Framing.asItIs
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { pendingMethods.append(head.method) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            let encoded = Self.encoded(head, respondingTo: answeredMethod(status: head.status), allocator: context.channel.allocator)
            framing = encoded.framing
            context.write(wrapOutboundOut(.byteBuffer(encoded.bytes)), promise: promise)
        case .body(let body):
            write(body, context: context, promise: promise)
        case .end(let trailers):
            writeEnd(trailers, context: context, promise: promise)
        }
    }

    /// Writes, unflushed, the whole answer to the oldest request not answered yet: `head` (encoded as for a `GET`)
    /// and `body`, none for `HEAD`. With no request waiting, the answer is to a `GET` read in front of the decoder
    /// (``PayloadFetchReader``). `promise` completes once all of it is written.
    func writeAnswer(_ head: EncodedHead, body: IOData?, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let method = pendingMethods.popFirst()
        framing = method == .HEAD || method == .CONNECT ? .none : head.framing
        // The last write carries the promise: writes complete in order.
        let endsWithBody = framing == .asItIs && body != nil
        context.write(wrapOutboundOut(.byteBuffer(head.bytes)), promise: nil)
        if let body { write(body, context: context, promise: endsWithBody ? promise : nil) }
        if !endsWithBody { writeEnd(nil, context: context, promise: promise) }
    }

    /// Writes, unflushed, a whole answer to a `GET` that is already bytes, its head and its body together: the answer
    /// to the oldest request not answered yet, or to one read in front of the decoder.
    func writeWholeAnswer(_ answer: IOData, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        _ = pendingMethods.popFirst()
        framing = .asItIs
        context.write(wrapOutboundOut(answer), promise: promise)
    }

    private func write(_ body: IOData, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        switch framing {
        case .none:
            // A body the request's method does not take is refused rather than dropped, as NIO's encoder does.
            promise?.fail(NIOHTTPResponseEncoderError.responseBodyNotAllowed)
        case .chunked where body.readableBytes > 0:
            // An empty chunk would end the body.
            var size = context.channel.allocator.buffer(capacity: 20)
            size.writeString(String(body.readableBytes, radix: 16))
            size.writeStaticString("\r\n")
            context.write(wrapOutboundOut(.byteBuffer(size)), promise: nil)
            context.write(wrapOutboundOut(body), promise: nil)
            context.write(wrapOutboundOut(.byteBuffer(Self.lineEnd)), promise: promise)
        case .chunked, .asItIs:
            context.write(wrapOutboundOut(body), promise: promise)
        }
    }

    private func writeEnd(_ trailers: HTTPHeaders?, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        if framing == .chunked {
            var last = context.channel.allocator.buffer(capacity: 5)
            last.writeStaticString("0\r\n")
            if let trailers { Self.write(trailers, to: &last) }
            last.writeStaticString("\r\n")
            context.write(wrapOutboundOut(.byteBuffer(last)), promise: promise)
        } else if let promise {
            // Nothing to send, but the promise must not complete before the writes ahead of it.
            context.write(wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: promise)
        }
        framing = .asItIs
    }

    /// The method of the request a head of `status` answers; an interim answer (`1xx` but `101`) answers none, and a
    /// final one takes its request off the queue.
    private func answeredMethod(status: HTTPResponseStatus) -> HTTPMethod? {
        let interim = (100..<200).contains(status.code) && status != .switchingProtocols
        return interim ? nil : pendingMethods.popFirst()
    }

    /// A head as it goes on the wire, and how its body follows it.
    struct EncodedHead {
        let bytes: ByteBuffer
        let framing: Framing
    }

    /// `head` framed for a request of `method` and serialized.
    static func encoded(_ head: HTTPResponseHead, respondingTo method: HTTPMethod?, allocator: ByteBufferAllocator) -> EncodedHead {
        var headers = head.headers
        var framing = Framing.asItIs
        // Headers are only changed where they must be: a list changed is a list copied.
        if method == .CONNECT || !head.status.mayHaveResponseBody {
            if headers.contains(name: "content-length") { headers.remove(name: "content-length") }
            if headers.contains(name: "transfer-encoding") { headers.remove(name: "transfer-encoding") }
        } else if headers.contains(name: "content-length") {
            if headers.contains(name: "transfer-encoding") { headers.remove(name: "transfer-encoding") }
        } else if head.version.major == 1, head.version.minor >= 1 {
            if headers.first(name: "transfer-encoding") != "chunked" { headers.replaceOrAdd(name: "transfer-encoding", value: "chunked") }
            framing = .chunked
        }
        if method == .HEAD || method == .CONNECT { framing = .none }

        var bytes = allocator.buffer(capacity: 256)
        bytes.writeString("HTTP/\(head.version.major).\(head.version.minor) \(head.status.code) \(head.status.reasonPhrase)\r\n")
        write(headers, to: &bytes)
        bytes.writeStaticString("\r\n")
        return EncodedHead(bytes: bytes, framing: framing)
    }

    private static func write(_ headers: HTTPHeaders, to bytes: inout ByteBuffer) {
        for (name, value) in headers {
            bytes.writeString(name)
            bytes.writeStaticString(": ")
            bytes.writeString(value)
            bytes.writeStaticString("\r\n")
        }
    }

    private static let lineEnd = ByteBuffer(string: "\r\n")
}
