import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#endif

/// The load balancers and reverse proxies in front of the gateway, whose `X-Forwarded-For` names the real client.
///
/// Behind a load balancer every connection comes from the balancer: without this, the login throttle would count
/// every client's failures against one address and lock everybody out together.
public struct TrustedProxies: Sendable, Equatable {
    private struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (a, b) in zip(address, bytes) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if a & mask != b & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    private var networks: [Network] = []

    /// Trusts nobody: the connection's peer is the client.
    public init() {}

    /// Parses a comma-separated list of addresses and CIDR networks, such as `10.0.0.0/8, ::1`; nil when an entry is
    /// neither.
    public init?(parsing list: String) {
        for entry in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(of: parts[0]) else { return nil }
            let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let length, (0...bytes.count * 8).contains(length) else { return nil }
            networks.append(Network(bytes: bytes, prefixLength: length))
        }
    }

    public var isEmpty: Bool { networks.isEmpty }

    /// The client a request comes from: its peer, or when the peer is trusted the nearest address in
    /// `X-Forwarded-For` that is not a trusted proxy itself (the entries before it could be forged by the client).
    func clientAddress(peer: String, forwardedFor: String?) -> String {
        guard isTrusted(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !isTrusted(hop) {
            return Self.bytes(of: hop) == nil ? peer : hop
        }
        return hops.first ?? peer
    }

    func isTrusted(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    private static func bytes(of address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

extension TrustedProxies {
    /// The address the login throttle counts `request` by.
    func clientAddress(of request: Request, context: RichPushRequestContext) -> String {
        clientAddress(peer: context.clientAddress, forwardedFor: request.headers[Self.forwardedFor])
    }

    private static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}
