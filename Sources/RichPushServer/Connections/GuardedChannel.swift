import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// A server child channel with the gateway's connection guards in front of `Base`'s handlers: the admission of
/// unauthenticated connections (``ConnectionAdmission``) and the byte arrivals that time a request header
/// (``ByteArrivals``), which must see the bytes before the HTTP decoder does. `Base` puts a ``RequestDeadlines``
/// into the pipeline of each HTTP/1.1 connection, at once or, over TLS, once the handshake chose HTTP/1.1.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: UnauthenticatedConnections
    /// How long a TLS handshake may take when `Base` speaks TLS; nil for plain HTTP, whose connections need no
    /// search for a TLS handler.
    var handshakeTimeout: TimeAmount? = nil

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [connections, handshakeTimeout] value in
            let pipeline = channel.pipeline.syncOperations
            if let handshakeTimeout {
                let tls = try pipeline.handler(type: NIOSSLServerHandler.self)
                try pipeline.addHandler(HandshakeDeadline(timeout: handshakeTimeout), position: .after(tls))
            }
            try pipeline.addHandler(ByteArrivals(), position: .first)
            try pipeline.addHandler(ConnectionAdmission(connections: connections), position: .first)
            // Each connection keeps its receive buffer between reads. A request head is a few hundred bytes, and an
            // open stream reads nothing more: its connection need not keep NIO's first guess of 2 KiB. Larger reads
            // grow the buffer again.
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffers)
            try channel.syncOptions?.setOption(ChannelOptions.writeBufferWaterMark, value: Self.writeBuffers)
            return value
        }
    }

    static var receiveBuffers: AdaptiveRecvByteBufferAllocator { AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536) }

    /// NIO's default marks (32 and 64 KiB) made every image answer larger than 64 KiB turn the connection unwritable
    /// and writable again, two events through the whole pipeline and the framework's writer a fetch. An image up to
    /// 256 KiB, as most pushed images are, now goes without; a client that stops reading still holds at most that
    /// much of the gateway's memory before the router's writers wait.
    static var writeBuffers: ChannelOptions.Types.WriteBufferWaterMark { .init(low: 128 * 1024, high: 256 * 1024) }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
