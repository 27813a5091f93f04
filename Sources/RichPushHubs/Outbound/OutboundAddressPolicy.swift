import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where requests to addresses that users name may go: to public addresses only, unless private ones are allowed
/// (`--allow-private-push-endpoints`, for tests and closed networks). A host is judged by every address it resolves
/// to, both when it is registered and again when a request is about to connect, so a name that a DNS server of its
/// owner's points elsewhere in between (DNS rebinding) is caught at the connection.
public struct OutboundAddressPolicy: Sendable {
    /// Resolves a host name to its addresses, as `getaddrinfo` does for a connection.
    public typealias Resolver = @Sendable (String) async throws -> [OutboundAddress]

    public let allowsPrivateAddresses: Bool
    let resolve: Resolver

    public init(allowsPrivateAddresses: Bool, resolve: @escaping Resolver = OutboundAddressPolicy.systemResolve) {
        self.allowsPrivateAddresses = allowsPrivateAddresses
        self.resolve = resolve
    }

    /// Why a host may not be reached, as a sentence.
    public struct Refusal: Error, Sendable, Equatable {
        public let reason: String
        /// True when the name did not resolve: a failure of the moment, not of the host.
        public let unresolved: Bool
    }

    /// Refuses a host named as a loopback or private address in any spelling, or as `localhost`; a name is left to
    /// ``addresses(of:)``. Nothing is resolved.
    public func checkLiteral(_ host: String) throws(Refusal) {
        guard !allowsPrivateAddresses else { return }
        if OutboundAddress.isLocalName(host) || OutboundAddress(literal: host)?.isPublic == false {
            throw Refusal(reason: "\(host) is a loopback, private or link-local address, which the gateway does not send to.", unresolved: false)
        }
    }

    /// The addresses `host` reaches, each judged: a host any of whose addresses is not public is refused whole, and
    /// one that does not resolve is refused as unresolved.
    public func addresses(of host: String) async throws(Refusal) -> [OutboundAddress] {
        try checkLiteral(host)
        if let literal = OutboundAddress(literal: host) { return [literal] }
        let addresses: [OutboundAddress]
        do {
            addresses = try await resolve(host)
        } catch {
            throw Refusal(reason: "\(host) does not resolve: \(error)", unresolved: true)
        }
        guard !addresses.isEmpty else { throw Refusal(reason: "\(host) has no address.", unresolved: true) }
        if !allowsPrivateAddresses, addresses.contains(where: { !$0.isPublic }) {
            throw Refusal(
                reason: "\(host) resolves to a loopback, private or link-local address, which the gateway does not send to.", unresolved: false)
        }
        return addresses
    }

    /// Resolution by the system's `getaddrinfo`, as a connection resolves, on threads of its own, so a name that a
    /// slow DNS server answers holds up no other blocking work. An answer that takes longer than
    /// ``resolutionTimeout`` counts as none: the caller goes on, and the lookup finishes on its thread unheard.
    public static let systemResolve: Resolver = { host in
        try await withCheckedThrowingContinuation { continuation in
            let caller = WaitingCaller(continuation)
            let timeout = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: resolutionTimeout) {
                caller.answer(.failure(ResolutionError(message: "no answer within \(resolutionTimeout.nanoseconds / 1_000_000_000) s")))
            }
            resolverThreads.submit { state in
                timeout.cancel()
                caller.answer(Result { state == .active ? try lookUp(host) : [] })
            }
        }
    }

    static let resolutionTimeout = TimeAmount.seconds(5)

    /// The caller of a lookup, answered once: by the lookup or by its timeout, whichever comes first.
    private final class WaitingCaller: Sendable {
        private let continuation: Mutex<CheckedContinuation<[OutboundAddress], any Error>?>

        init(_ continuation: CheckedContinuation<[OutboundAddress], any Error>) {
            self.continuation = Mutex(continuation)
        }

        func answer(_ result: Result<[OutboundAddress], any Error>) {
            continuation.withLock { $0.take() }?.resume(with: result)
        }
    }

    /// The threads that wait for `getaddrinfo`: as many lookups as may wait at once before others queue.
    private static let resolverThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()

    private static func lookUp(_ host: String) throws -> [OutboundAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else { throw ResolutionError(message: String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [OutboundAddress] = []
        var entry = list
        while let info = entry?.pointee {
            if info.ai_family == AF_INET, let address = info.ai_addr {
                let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                addresses.append(OutboundAddress(bytes: withUnsafeBytes(of: v4) { Array($0) }))
            } else if info.ai_family == AF_INET6, let address = info.ai_addr {
                let v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                addresses.append(OutboundAddress(bytes: withUnsafeBytes(of: v6) { Array($0) }))
            }
            entry = info.ai_next
        }
        var seen = Set<OutboundAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }

    struct ResolutionError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
