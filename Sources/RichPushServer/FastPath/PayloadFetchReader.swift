import NIOCore

/// Answers the payload fetches of a plain HTTP/1.1 connection straight from its bytes, in front of its decoder
/// (``PlainFetchHead``), through the connection's ``PayloadFastPath``.
///
/// A device's connection is mostly fetches; a fetch read here skips the decoder and the handlers it passes to reach
/// the fast path. A fetch the fast path leaves to the router (a cache that has to be filled again, a routed answer
/// ahead of it) goes to the decoder whole, so the decoder is between requests again behind it. The first request of
/// another kind, and every byte after it, goes to the decoder, which from then on reads them all: it may hold part of
/// a request, and a request read here could then overtake one ahead of it. A head split between two reads goes to the
/// decoder too, so the reader never holds bytes of its own.
final class PayloadFetchReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let fastPath: PayloadFastPath<HTTP1PayloadWire>
    private let limits: PlainFetchHead.Limits
    /// Whether the decoder reads every byte from now on.
    private var decoding = false
    /// Whether the decoder had bytes since the handlers behind it last saw a read end.
    private var forwardedRead = false

    init(fastPath: PayloadFastPath<HTTP1PayloadWire>, limits: PlainFetchHead.Limits) {
        self.fastPath = fastPath
        self.limits = limits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !decoding else {
            forwardedRead = true
            return context.fireChannelRead(data)
        }
        var bytes = unwrapInboundIn(data)
        repeat {
            guard case .fetch(let head) = bytes.withUnsafeReadableBytes({ PlainFetchHead.read($0, limits: limits) }),
                let request = bytes.readSlice(length: head.length)
            else {
                decoding = true
                forwardedRead = true
                context.fireChannelRead(wrapInboundOut(bytes))
                return
            }
            if !fastPath.answered(head.fetch, context: context) {
                forwardedRead = true
                context.fireChannelRead(wrapInboundOut(request))
            }
        } while bytes.readableBytes > 0
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // The fast path behind the decoder flushes the answers written here with its own.
        if forwardedRead {
            forwardedRead = false
            context.fireChannelReadComplete()
            return
        }
        fastPath.flushAnswers(context: context)
        if fastPath.routesNothing {
            // No handler above has had a request it has not answered, so none holds back reading for one: the next read
            // is asked for here, and NIO does not ask for it again from the pipeline's tail through every handler.
            context.read()
        }
    }
}
