public import AsyncHTTPClient
public import Foundation
import NIOPosix
import RichPushCore

/// HTTP clients for hosts that users name, each connecting only to an address the policy judged.
///
/// async-http-client resolves a name itself when it connects and offers no hook on the address it gets, so a check
/// made before it connects could be answered by DNS differently from the connection. Instead each host gets a client
/// whose `dnsOverride` sends its connections to the one address judged (TLS still verifies the host's name). The
/// address is judged again when it is a minute old; a client whose host moved elsewhere, or the least recently used
/// one past ``maximumHosts``, is retired, and shut down once the requests it may still carry have timed out.
public actor PinnedHTTPClients {
    public let policy: OutboundAddressPolicy
    private let configuration: HTTPClient.Configuration
    /// Reached directly by literal addresses, which need no pin.
    private let shared: HTTPClient
    private var pinned: [String: Pin] = [:]
    private var retired: [(client: HTTPClient, at: ContinuousClock.Instant)] = []

    private struct Pin {
        var address: OutboundAddress
        var client: HTTPClient
        var judgedAt: ContinuousClock.Instant
        var usedAt: ContinuousClock.Instant
    }

    /// Far more push services than exist; a member naming endless hosts of its own costs at most this many clients.
    static let maximumHosts = 64

    /// How long a judged address is used before it is judged again.
    static let rejudgeAfter = Duration.seconds(60)
    /// Past the longest a request waits for its answer.
    static let retireAfter = Duration.seconds(60)

    public init(configuration: HTTPClient.Configuration, policy: OutboundAddressPolicy) {
        self.configuration = configuration
        self.policy = policy
        shared = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// The client for a request to `url`, once its host is judged; throws the policy's refusal.
    public func client(for url: URL) async throws(OutboundAddressPolicy.Refusal) -> HTTPClient {
        guard let host = url.host, !host.isEmpty else {
            throw OutboundAddressPolicy.Refusal(reason: "\(url) names no host.", unresolved: false)
        }
        let now = ContinuousClock.now
        await shutDownRetired(before: now - Self.retireAfter)
        if OutboundAddress(literal: host) != nil {
            try policy.checkLiteral(host)
            return shared
        }
        if var pin = pinned[host], pin.judgedAt > now - Self.rejudgeAfter {
            pin.usedAt = now
            pinned[host] = pin
            return pin.client
        }
        let addresses = try await policy.addresses(of: host)
        // Another request may have judged the host while this one waited for its addresses.
        if var pin = pinned[host], addresses.contains(pin.address) {
            pin.judgedAt = now
            pin.usedAt = now
            pinned[host] = pin
            return pin.client
        }
        // IPv4 where the host has both: a host reachable over IPv6 nearly always is over IPv4 too, and a gateway
        // without IPv6 routes is common.
        let address = addresses.first { $0.bytes.count == 4 } ?? addresses[0]
        var configuration = configuration
        configuration.dnsOverride = [host: address.text]
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        if let previous = pinned[host] { retired.append((previous.client, now)) }
        pinned[host] = Pin(address: address, client: client, judgedAt: now, usedAt: now)
        if pinned.count > Self.maximumHosts, let (oldest, pin) = pinned.min(by: { $0.value.usedAt < $1.value.usedAt }) {
            pinned[oldest] = nil
            retired.append((pin.client, now))
        }
        return client
    }

    /// The client a hub's request to `url` goes through, or, when its host is refused, the delivery's outcome: the
    /// device is gone when the host is not public (its channel can never be used), and the push is retried when the
    /// name did not resolve.
    enum Connection {
        case ready(HTTPClient)
        case refused(DeliveryOutcome)
    }

    func connection(to url: String, hub: String) async -> Connection {
        guard let parsed = URL(string: url) else {
            return .refused(.deviceGone(code: "\(hub).invalidChannel", message: "the channel is not a URL"))
        }
        do throws(OutboundAddressPolicy.Refusal) {
            return .ready(try await client(for: parsed))
        } catch {
            if error.unresolved { return .refused(.retry(after: 0, code: "\(hub).unreachable", message: error.reason)) }
            return .refused(.deviceGone(code: "\(hub).forbiddenAddress", message: error.reason))
        }
    }

    /// Closes every client.
    public func shutdown() async throws {
        for client in [shared] + pinned.values.map(\.client) + retired.map(\.client) { try? await client.shutdown() }
        pinned = [:]
        retired = []
    }

    private func shutDownRetired(before deadline: ContinuousClock.Instant) async {
        let due = retired.filter { $0.at < deadline }
        guard !due.isEmpty else { return }
        retired.removeAll { $0.at < deadline }
        for entry in due { try? await entry.client.shutdown() }
    }
}
