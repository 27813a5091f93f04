import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// A plain HTTP/1.1 connection with the payload fast path right behind its decoder, in front of the conversion to
/// HTTP types (``HTTP1PayloadWire``): the fetch every device makes after every push skips the conversion of its
/// head both ways and every handler above, and its image goes to the socket as a file.
struct PlainHTTP1Channel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let replies: MemoryPayloadReplies
    let connections: UnauthenticatedConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [replies, connections] value in
            let pipeline = channel.pipeline.syncOperations
            let wire = HTTP1PayloadWire(deadlines: try pipeline.handler(type: RequestDeadlines.self))
            try pipeline.addHandler(
                PayloadFastPath(replies: replies, connections: connections, wire: wire),
                position: .before(pipeline.handler(type: HTTP1ToHTTPServerCodec.self)))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
