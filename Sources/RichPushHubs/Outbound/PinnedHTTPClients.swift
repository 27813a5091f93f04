public import AsyncHTTPClient
public import Foundation
import NIOPosix
import RichPushCore

/// Connections to hosts that users name (push services, WNS channels, webhooks, actions), each going only to an
/// address the policy judged.
///
/// async-http-client resolves a name itself when it connects and offers no hook on the address it gets, so a check
/// made before it connects could be answered by DNS differently from the connection. Instead each host gets a client
/// whose `dnsOverride` sends its connections to the one address judged (TLS still verifies the host's name), and, for
/// pushes, an ``HTTP2Session`` per origin connecting to that address. The address is judged again when it is a minute
/// old; a host that moved elsewhere, the least recently used one past ``maximumHosts``, or one unused for
/// ``idleAfter`` is retired, and its connections closed once the requests they may still carry have timed out.
public actor PinnedHTTPClients {
    public let policy: OutboundAddressPolicy
    private let configuration: HTTPClient.Configuration
    private let caFile: String?
    private let maximumStreams: Int
    private let maximumConnections: Int
    private var pinned: [String: Pin] = [:]
    /// Connections let go, each closed once its requests can no longer be waiting for an answer.
    private var retired: [(close: @Sendable () async -> Void, at: ContinuousClock.Instant)] = []

    private struct Pin: Sendable {
        var address: OutboundAddress
        /// The host is an address literal, reached as it is.
        var literal: Bool
        var client: HTTPClient?
        /// By port: the HTTP/2 sessions of the host's origins that offer HTTP/2 over TLS.
        var sessions: [Int: HTTP2Session] = [:]
        /// Ports whose TLS did not offer HTTP/2.
        var withoutHTTP2: Set<Int> = []
        var judgedAt: ContinuousClock.Instant
        var usedAt: ContinuousClock.Instant

        func close() async {
            try? await client?.shutdown()
            for session in sessions.values { await session.shutdown() }
        }
    }

    /// Far more push services than exist; a member naming endless hosts of its own costs at most this many clients.
    static let maximumHosts = 64

    /// How long a judged address is used before it is judged again.
    static let rejudgeAfter = Duration.seconds(60)
    /// Past the longest a request waits for its answer.
    static let retireAfter = Duration.seconds(60)
    /// async-http-client's pools close a connection idle this long; a host unused as long is let go whole.
    static let idleAfter = Duration.seconds(600)

    /// Connections trusting the system's CAs plus `caFile`; each push origin's ``HTTP2Session`` opens at most
    /// `maximumConnections` connections of at most `maximumStreams` streams.
    public init(
        caFile: String?, policy: OutboundAddressPolicy, maximumStreams: Int = HubSettings().maximumStreams,
        maximumConnections: Int = HubSettings().maximumConnections
    ) throws(HubConfigurationError) {
        self.configuration = try HTTPClient.hubClientConfiguration(caFile: caFile)
        self.caFile = caFile
        self.policy = policy
        self.maximumStreams = maximumStreams
        self.maximumConnections = maximumConnections
    }

    /// The client for a request to `url`, once its host is judged; throws the policy's refusal.
    public func client(for url: URL) async throws(OutboundAddressPolicy.Refusal) -> HTTPClient {
        client(of: try await judged(url))
    }

    /// How a request to `url` reaches its host, once the host is judged: an `https` origin as streams of its own
    /// HTTP/2 session, unless its TLS did not offer HTTP/2 or `http2` is false; otherwise through async-http-client.
    func route(to url: URL, http2: Bool = true) async throws(OutboundAddressPolicy.Refusal) -> Route {
        let host = try await judged(url)
        let port = url.port ?? 443
        guard http2, url.scheme?.lowercased() == "https", let pin = pinned[host], !pin.withoutHTTP2.contains(port) else {
            return .http1(client(of: host))
        }
        if let session = pin.sessions[port] { return .http2(session) }
        let origin = "https://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        guard
            let session = try? HTTP2Session(
                baseURL: origin, caFile: caFile, maximumConcurrentStreams: maximumStreams, maximumConnections: maximumConnections,
                address: pin.literal ? nil : pin.address.text)
        else { return .http1(client(of: host)) }
        pinned[host]?.sessions[port] = session
        return .http2(session)
    }

    /// The origin of `url` turned out not to offer HTTP/2: its requests go through async-http-client from now on.
    func speaksNoHTTP2(_ url: URL) {
        guard let host = url.host?.lowercased(), var pin = pinned[host] else { return }
        let port = url.port ?? 443
        pin.withoutHTTP2.insert(port)
        if let session = pin.sessions.removeValue(forKey: port) { retired.append(({ await session.shutdown() }, .now)) }
        pinned[host] = pin
    }

    /// How a request reaches its host.
    enum Route {
        case http2(HTTP2Session)
        case http1(HTTPClient)
    }

    /// The route a hub's request to `url` takes, or, when its host is refused, the delivery's outcome: the device is
    /// gone when the host is not public (its channel can never be used), and the push is retried when the name did
    /// not resolve.
    enum Connection {
        case ready(Route)
        case refused(DeliveryOutcome)
    }

    func connection(to url: URL, hub: String, http2: Bool = true) async -> Connection {
        do throws(OutboundAddressPolicy.Refusal) {
            return .ready(try await route(to: url, http2: http2))
        } catch {
            if error.unresolved { return .refused(.retry(after: 0, code: "\(hub).unreachable", message: error.reason)) }
            return .refused(.deviceGone(code: "\(hub).forbiddenAddress", message: error.reason))
        }
    }

    /// Closes every connection.
    public func shutdown() async throws {
        let (pins, retiring) = (pinned.values, retired)
        pinned = [:]
        retired = []
        for pin in pins { await pin.close() }
        for entry in retiring { await entry.close() }
    }

    /// The key of `url`'s host in ``pinned``, its address judged within ``rejudgeAfter``; the host is pinned when
    /// this returns (the least recently used one let go to make room is never the host itself).
    private func judged(_ url: URL) async throws(OutboundAddressPolicy.Refusal) -> String {
        guard let name = url.host, !name.isEmpty else {
            throw OutboundAddressPolicy.Refusal(reason: "\(url) names no host.", unresolved: false)
        }
        let host = name.lowercased()
        await closeRetired(before: ContinuousClock.now - Self.retireAfter)
        var now = ContinuousClock.now
        retireIdle(before: now - Self.idleAfter, now: now)
        if let literal = OutboundAddress(literal: host) {
            try policy.checkLiteral(host)
            pinned[host, default: Pin(address: literal, literal: true, judgedAt: now, usedAt: now)].usedAt = now
            retireLeastRecentlyUsed(keeping: host, now: now)
            return host
        }
        if let pin = pinned[host], pin.judgedAt > now - Self.rejudgeAfter {
            pinned[host]?.usedAt = now
            return host
        }
        let addresses = try await policy.addresses(of: host)
        now = ContinuousClock.now
        // Another request may have judged the host while this one waited for its addresses.
        if let pin = pinned[host], addresses.contains(pin.address) {
            pinned[host]?.judgedAt = now
            pinned[host]?.usedAt = now
            return host
        }
        // IPv4 where the host has both: a host reachable over IPv6 nearly always is over IPv4 too, and a gateway
        // without IPv6 routes is common.
        let address = addresses.first { $0.bytes.count == 4 } ?? addresses[0]
        if let previous = pinned[host] { retire(previous, now: now) }
        pinned[host] = Pin(address: address, literal: false, judgedAt: now, usedAt: now)
        retireLeastRecentlyUsed(keeping: host, now: now)
        return host
    }

    /// The async-http-client client of a judged host, made when first needed.
    private func client(of host: String) -> HTTPClient {
        if let client = pinned[host]!.client { return client }
        var configuration = configuration
        if let pin = pinned[host], !pin.literal { configuration.dnsOverride = [host: pin.address.text] }
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        pinned[host]!.client = client
        return client
    }

    private func retireLeastRecentlyUsed(keeping host: String, now: ContinuousClock.Instant) {
        guard pinned.count > Self.maximumHosts,
            let (oldest, pin) = pinned.filter({ $0.key != host }).min(by: { $0.value.usedAt < $1.value.usedAt })
        else { return }
        pinned[oldest] = nil
        retire(pin, now: now)
    }

    private func retireIdle(before deadline: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        for (host, pin) in pinned where pin.usedAt < deadline {
            pinned[host] = nil
            retire(pin, now: now)
        }
    }

    private func retire(_ pin: Pin, now: ContinuousClock.Instant) {
        retired.append(({ await pin.close() }, now))
    }

    private func closeRetired(before deadline: ContinuousClock.Instant) async {
        let due = retired.filter { $0.at < deadline }
        guard !due.isEmpty else { return }
        retired.removeAll { $0.at < deadline }
        for entry in due { await entry.close() }
    }
}
