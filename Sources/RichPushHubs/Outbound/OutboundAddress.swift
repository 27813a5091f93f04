#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An IP address a request may go to, as its bytes (4 for IPv4, 16 for IPv6) and its text, and whether it is on the
/// public internet.
///
/// The gateway sends requests to addresses its users name (Web Push endpoints, WNS channels): one on the gateway's
/// own machine or network would let any member make it post there. Only globally routable unicast addresses are
/// public here; loopback, private (RFC 1918, RFC 6598, unique local), link-local, unspecified, multicast, reserved and
/// documentation ranges are not, and an IPv4 address embedded in IPv6 (mapped, compatible, NAT64, 6to4) is judged as
/// the IPv4 address it carries.
public struct OutboundAddress: Sendable, Hashable {
    public let bytes: [UInt8]

    /// The address in the form `SocketAddress(ipAddress:port:)` reads: dotted quad, or IPv6 without brackets.
    public var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The address `host` spells without asking DNS, in every form the system's resolver reads as one: IPv4 as
    /// `inet_aton` reads it (`127.1`, `0x7f.1`, `2130706433`, `0177.0.0.1`, `10.1`, `0`), IPv6 with or without
    /// brackets and a zone. Nil for a name.
    public init?(literal host: String) {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        var v4 = in_addr()
        if !text.contains(":"), inet_aton(text, &v4) != 0 {
            self.init(bytes: withUnsafeBytes(of: v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(bytes: withUnsafeBytes(of: v6) { Array($0) })
            return
        }
        return nil
    }

    /// Whether the address is globally routable unicast.
    public var isPublic: Bool {
        bytes.count == 4 ? Self.isPublicIPv4(bytes) : Self.isPublicIPv6(bytes)
    }

    private static func isPublicIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1], b[2]) {
        case (0, _, _), (10, _, _), (127, _, _): false  // this network, private, loopback
        case (100, 64...127, _): false  // shared address space (RFC 6598)
        case (169, 254, _): false  // link-local
        case (172, 16...31, _): false  // private
        case (192, 0, 0), (192, 0, 2), (192, 88, 99), (192, 168, _): false  // protocol assignments, documentation, 6to4 relay, private
        case (198, 18...19, _), (198, 51, 100), (203, 0, 113): false  // benchmarking, documentation
        case (224...255, _, _): false  // multicast, reserved, broadcast
        default: true
        }
    }

    private static func isPublicIPv6(_ b: [UInt8]) -> Bool {
        let prefix96 = b[0..<12]
        // ::/96 holds the unspecified address, loopback and the deprecated IPv4-compatible form.
        if prefix96.allSatisfy({ $0 == 0 }) { return false }
        if prefix96.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) { return isPublicIPv4(Array(b[12..<16])) }  // mapped
        if prefix96.elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) { return isPublicIPv4(Array(b[12..<16])) }  // NAT64
        if b[0] == 0x20, b[1] == 0x02 { return isPublicIPv4(Array(b[2..<6])) }  // 6to4
        switch (b[0], b[1], b[2], b[3]) {
        case (0x00, 0x64, 0xFF, 0x9B): return false  // local-use NAT64 (64:ff9b:1::/48) and the rest of its /32
        case (0x01, 0x00, 0x00, 0x00): return false  // discard (100::/64)
        case (0x20, 0x01, 0x00, 0x00): return false  // Teredo: the IPv4 it reaches is hidden
        case (0x20, 0x01, 0x0D, 0xB8): return false  // documentation
        case (0x3F, 0xFF, 0x00...0x0F, _): return false  // documentation (3fff::/20)
        default: break
        }
        if b[0] & 0xFE == 0xFC { return false }  // unique local
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 || b[1] & 0xC0 == 0xC0 { return false }  // link-local, site-local
        if b[0] == 0xFF { return false }  // multicast
        return b[0] & 0xE0 == 0x20  // global unicast is 2000::/3
    }

    /// Whether `host` is a name for the machine itself (`localhost`, a name under `.localhost`, RFC 6761), with or
    /// without its final dot.
    public static func isLocalName(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name == "localhost" || name.hasSuffix(".localhost")
    }
}
