import NIOCore
import Synchronization

/// Bounds the connections one client address holds open before any request on them signs in: without it, anyone
/// could hold thousands of sockets (and their memory) for the length of the idle timeout, from one machine.
///
/// A connection counts from its accept until a request on it carries valid credentials or a valid signed link, or
/// until it closes. Trusted proxies carry many clients' connections and are not counted.
final class UnauthenticatedConnections: Sendable {
    private struct State {
        var perAddress: [String: Int] = [:]
        /// The counted connections, with the address each counts against.
        var counted: [ObjectIdentifier: String] = [:]
    }

    let limitPerAddress: Int
    let trustedProxies: TrustedProxies
    private let state = Mutex(State())

    init(limitPerAddress: Int, trustedProxies: TrustedProxies) {
        self.limitPerAddress = limitPerAddress
        self.trustedProxies = trustedProxies
    }

    /// Counts a new connection from `address`; false when the address already has its limit open.
    func admit(_ connection: ObjectIdentifier, address: String) -> Bool {
        guard !trustedProxies.isTrusted(address) else { return true }
        return state.withLock { state in
            let open = state.perAddress[address, default: 0]
            guard open < limitPerAddress else { return false }
            state.perAddress[address] = open + 1
            state.counted[connection] = address
            return true
        }
    }

    /// A request on `connection` signed in: it no longer counts.
    func signedIn(_ connection: ObjectIdentifier) {
        state.withLock { state in Self.release(connection, in: &state) }
    }

    /// `connection` closed.
    func closed(_ connection: ObjectIdentifier) {
        state.withLock { state in Self.release(connection, in: &state) }
    }

    /// How many connections of `address` count now.
    func count(of address: String) -> Int {
        state.withLock { $0.perAddress[address, default: 0] }
    }

    private static func release(_ connection: ObjectIdentifier, in state: inout State) {
        guard let address = state.counted.removeValue(forKey: connection) else { return }
        let open = state.perAddress[address, default: 1] - 1
        state.perAddress[address] = open > 0 ? open : nil
    }
}

/// The first handler of every connection: admits it against ``UnauthenticatedConnections`` or closes it at once.
final class ConnectionAdmission: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let connections: UnauthenticatedConnections
    private var admitted = false

    init(connections: UnauthenticatedConnections) {
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed(ObjectIdentifier(context.channel))
        context.fireChannelInactive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        let address = context.channel.remoteAddress?.ipAddress ?? "local"
        if !connections.admit(ObjectIdentifier(context.channel), address: address) {
            context.close(promise: nil)
        }
    }
}

extension ObjectIdentifier {
    /// The TCP connection `channel` carries requests of: for an HTTP/2 stream its parent connection (whose own parent
    /// is the listening socket), otherwise the channel itself. Admission counts connections, so a request signs in
    /// the connection it came on.
    init(connectionOf channel: any Channel) {
        if let parent = channel.parent, parent.parent != nil {
            self.init(parent)
        } else {
            self.init(channel)
        }
    }
}
