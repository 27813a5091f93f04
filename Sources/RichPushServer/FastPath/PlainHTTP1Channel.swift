import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// A plain HTTP/1.1 connection with the payload fast path right behind its decoder, in front of the conversion to
/// HTTP types (``HTTP1PayloadWire``), and a reader of fetches in front of the decoder (``PayloadFetchReader``): the
/// fetch every device makes after every push skips the decoder while the connection has sent only fetches, the
/// conversion of its head both ways and every handler above always, and its image goes to the socket as a file.
///
/// Its pipeline is `base`'s (Hummingbird's `HTTP1Channel.setup`, handler for handler) but for the encoder: the
/// connection's answers go through ``HTTP1ResponseEncoder`` instead of NIOHTTP1's, which the fast path could not
/// write below; `base` answers the requests that reach it.
struct PlainHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let replies: MemoryPayloadReplies
    let connections: UnauthenticatedConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture { [base, replies, connections] in
            let configuration = base.configuration
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = configuration.httpDecoder.maxHeaderFieldSize
            limits.maxHeaderListSize = configuration.httpDecoder.maxHeaderListSize
            limits.maxHeaderFieldCount = configuration.httpDecoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits))
            let encoder = HTTP1ResponseEncoder()
            try pipeline.addHandlers([decoder, encoder, HTTP1ToHTTPServerCodec(secure: false)])
            try pipeline.addHandlers(configuration.additionalChannelHandlers())
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: configuration.idleTimeout.map { .init($0) }, logger: logger))
            let wire = HTTP1PayloadWire(deadlines: try pipeline.handler(type: RequestDeadlines.self), encoder: encoder)
            let fastPath = PayloadFastPath(replies: replies, connections: connections, wire: wire)
            try pipeline.addHandler(fastPath, position: .after(encoder))
            let headLimits = PlainFetchHead.Limits(
                headLength: min(limits.maxHeaderFieldSize, limits.maxHeaderListSize), fieldCount: limits.maxHeaderFieldCount)
            try pipeline.addHandler(PayloadFetchReader(fastPath: fastPath, limits: headLimits), position: .before(decoder))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
