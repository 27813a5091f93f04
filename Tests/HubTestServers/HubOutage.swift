import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A hub's address that can go down and come back: a TCP relay in front of a loopback hub which, while down, accepts
/// each connection and closes it at once, as a host whose service is gone does (the client's TLS handshake fails),
/// and counts every connection made to it, so a test sees how hard a client knocks on a hub that is down.
///
/// SwiftNIO has no relay of its own (its examples' `GlueHandler` is not a library product): the two handlers below
/// pass bytes each way and close one side when the other closes.
public final class HubOutage: Sendable {
    public let port: Int
    private let channel: any Channel
    private let state: NIOLockedValueBox<State>

    private struct State {
        var down = false
        var attemptsWhileDown = 0
        var connections = 0
        /// The connections relayed now, cut when the hub goes down.
        var relayed: [ObjectIdentifier: any Channel] = [:]
    }

    /// Relays 127.0.0.1:`port` (a free port) to the hub on `targetPort`.
    public static func relaying(to targetPort: Int) async throws -> HubOutage {
        let state = NIOLockedValueBox(State())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                let down = state.withLockedValue { state -> Bool in
                    state.connections += 1
                    if state.down { state.attemptsWhileDown += 1 }
                    return state.down
                }
                guard !down else { return inbound.close() }
                state.withLockedValue { $0.relayed[ObjectIdentifier(inbound)] = inbound }
                inbound.closeFuture.whenComplete { _ in _ = state.withLockedValue { $0.relayed.removeValue(forKey: ObjectIdentifier(inbound)) } }
                // On the inbound connection's loop, so both sides of the relay are handled on one thread.
                return ClientBootstrap(group: inbound.eventLoop).connect(host: "127.0.0.1", port: targetPort).flatMap { outbound in
                    let (toHub, fromHub) = RelayHandler.pair()
                    return inbound.pipeline.addHandler(toHub).flatMap { outbound.pipeline.addHandler(fromHub) }
                        .flatMap { inbound.setOption(.autoRead, value: true) }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return HubOutage(port: channel.localAddress?.port ?? 0, channel: channel, state: state)
    }

    private init(port: Int, channel: any Channel, state: NIOLockedValueBox<State>) {
        self.port = port
        self.channel = channel
        self.state = state
    }

    /// Cuts every connection relayed now, and from now on closes each new one as soon as it is made.
    public func goDown() {
        let cut = state.withLockedValue { state in
            state.down = true
            return Array(state.relayed.values)
        }
        for channel in cut { channel.close(promise: nil) }
    }
    /// From now on connections reach the hub again.
    public func comeBack() { state.withLockedValue { $0.down = false } }
    /// Connections made while the hub was down.
    public var attemptsWhileDown: Int { state.withLockedValue { $0.attemptsWhileDown } }
    /// Connections made, down or not.
    public var connections: Int { state.withLockedValue { $0.connections } }

    public func stop() async {
        try? await channel.close()
    }
}

/// One side of a relay: what it reads goes to its partner's channel, written as it comes. Both sides are on one event
/// loop, which is what makes the class sendable.
private final class RelayHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: RelayHandler?
    private var context: ChannelHandlerContext?

    static func pair() -> (RelayHandler, RelayHandler) {
        let first = RelayHandler()
        let second = RelayHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.write(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func write(_ bytes: ByteBuffer) {
        context?.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }
}
