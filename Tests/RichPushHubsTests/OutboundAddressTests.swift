import AsyncHTTPClient
import Crypto
import Foundation
import HubTestServers
import Hummingbird
import NIOSSL
import RichPushCore
import Synchronization
import TestSupport
import Testing

@testable import RichPushHubs

/// The addresses the gateway posts to on its users' word (Web Push endpoints, WNS channels): public ones only, however
/// they are spelled or resolved.
@Suite("Outbound addresses")
struct OutboundAddressTests {
    static let strict = OutboundAddressPolicy(allowsPrivateAddresses: false) { _ in throw CancellationError() }

    @Test(arguments: [
        "127.0.0.1", "2130706433", "0x7f.1", "127.1", "0177.0.0.1", "017700000001", "0", "10.1", "10.1.2.3", "172.20.0.1", "192.168.1.1",
        "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "localhost", "localhost.", "Push.LOCALHOST", "[::1]",
        "[0:0:0:0:0:0:0:1]", "[0::1]", "::", "[fe80::1%25eth0]", "[fd00::1]", "[::ffff:10.0.0.1]", "[::ffff:7f00:1]", "[64:ff9b::7f00:1]",
        "[2002:7f00:1::]", "[ff02::1]", "[2001:db8::1]",
    ])
    func everySpellingOfALoopbackPrivateOrLinkLocalAddressIsRefused(host: String) {
        #expect(throws: OutboundAddressPolicy.Refusal.self) { try Self.strict.checkLiteral(host) }
    }

    @Test(arguments: [
        "8.8.8.8", "172.32.0.1", "100.128.0.1", "[2606:4700:4700::1111]", "[::ffff:8.8.8.8]", "fcm.googleapis.com", "1.2.3.4.example.com",
    ])
    func aPublicAddressOrANameIsLeftToResolution(host: String) throws {
        try Self.strict.checkLiteral(host)
    }

    @Test func aNameOneOfWhoseAddressesIsPrivateIsRefusedWhole() async throws {
        let policy = OutboundAddressPolicy(allowsPrivateAddresses: false) { _ in
            [OutboundAddress(literal: "93.184.215.14")!, OutboundAddress(literal: "10.0.0.7")!]
        }
        await #expect(
            throws: OutboundAddressPolicy.Refusal(
                reason: "push.example.net resolves to a loopback, private or link-local address, which the gateway does not send to.",
                unresolved: false)
        ) {
            try await policy.addresses(of: "push.example.net")
        }
    }

    @Test func aNameThatDoesNotResolveIsRefusedAsAFailureOfTheMoment() async throws {
        let error = await #expect(throws: OutboundAddressPolicy.Refusal.self) { try await Self.strict.addresses(of: "push.example.net") }
        #expect(error?.unresolved == true)
    }

    @Test func privateAddressesAreReachedWhenAllowed() async throws {
        let policy = OutboundAddressPolicy(allowsPrivateAddresses: true) { _ in [OutboundAddress(literal: "127.0.0.1")!] }
        try policy.checkLiteral("127.1")
        #expect(try await policy.addresses(of: "push.test").map(\.text) == ["127.0.0.1"])
    }

    @Test func theSystemResolverReadsNumericHostsAsTheConnectionWould() async throws {
        let addresses = try await OutboundAddressPolicy.systemResolve("0x7f.1")
        #expect(addresses.map(\.text) == ["127.0.0.1"])
        #expect(addresses.allSatisfy { !$0.isPublic })
    }

    @Test func endlessHostsOfAMembersOwnKeepAtMostSixtyFourClients() async throws {
        let lookups = Counter()
        let policy = OutboundAddressPolicy(allowsPrivateAddresses: true) { _ in
            lookups.add()
            return [OutboundAddress(literal: "127.0.0.1")!]
        }
        let clients = try PinnedHTTPClients(caFile: nil, policy: policy)
        for index in 0...PinnedHTTPClients.maximumHosts {
            _ = try await clients.client(for: URL(string: "https://h\(index).push.example/p")!)
        }
        #expect(lookups.value == 65)
        // The most recently used are still pinned; the first, least recently used, was retired and is judged anew.
        _ = try await clients.client(for: URL(string: "https://h64.push.example/p")!)
        #expect(lookups.value == 65)
        _ = try await clients.client(for: URL(string: "https://h0.push.example/p")!)
        #expect(lookups.value == 66)
        try await clients.shutdown()
    }

    /// The first host's name resolves only after 64 others have been pinned meanwhile: it was judged first, and must
    /// not be the least recently used one let go to make room for itself.
    @Test func aHostWhoseNameResolvedLastOfSixtyFiveAtOnceIsStillPinned() async throws {
        let (lookups, waiting) = (Counter(), Counter())
        let (gate, open) = AsyncStream<Void>.makeStream()
        let policy = OutboundAddressPolicy(allowsPrivateAddresses: true) { host in
            lookups.add()
            if host == "h0.push.example" {
                waiting.add()
                for await _ in gate { break }
            }
            return [OutboundAddress(literal: "127.0.0.1")!]
        }
        let clients = try PinnedHTTPClients(caFile: nil, policy: policy)
        let first = Task { try await clients.client(for: URL(string: "https://h0.push.example/p")!) }
        #expect(await eventually { waiting.value == 1 })
        for index in 1...PinnedHTTPClients.maximumHosts {
            _ = try await clients.client(for: URL(string: "https://h\(index).push.example/p")!)
        }
        open.yield()
        _ = try await first.value
        _ = try await clients.client(for: URL(string: "https://h0.push.example/p")!)
        #expect(lookups.value == 65, "the first host was let go and judged again")
        try await clients.shutdown()
    }

    /// A Web Push service on loopback that notes the path of each request, answering `/push/redirect` with a
    /// redirect to `/internal` on `target` and everything else with 201.
    final class PushService: Sendable {
        let server: LoopbackServer
        private let paths: Paths

        final class Paths: Sendable {
            let received = Mutex<[String]>([])
        }

        private init(server: LoopbackServer, paths: Paths) {
            self.server = server
            self.paths = paths
        }

        static func start(authority: TestCertificateAuthority, redirectingTo target: String = "") async throws -> PushService {
            let paths = Paths()
            let router = Router(context: LoopbackContext.self)
            router.post("**") { request, _ -> Response in
                paths.received.withLock { $0.append(request.uri.path) }
                if request.uri.path == "/push/redirect" {
                    return Response(status: .temporaryRedirect, headers: [.location: "\(target)/internal"])
                }
                return Response(status: .created)
            }
            // HTTP/1.1 over TLS, as some push services still speak: what is tested here is where the request goes.
            var tls = authority.serverTLSConfiguration()
            tls.applicationProtocols = ["http/1.1"]
            return PushService(server: try await LoopbackServer.start(router, tls: tls), paths: paths)
        }

        var received: [String] { paths.received.withLock { $0 } }
    }

    /// Runs `body` with a Web Push hub judging addresses by `resolve`, and two push services on loopback (one
    /// redirecting to the other); the hub's clients close before the services stop.
    func withWebPushHub(
        resolving resolve: @escaping OutboundAddressPolicy.Resolver, allowsPrivate: Bool,
        _ body: (WebPushHub, _ service: PushService, _ inside: PushService) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let authority = try TestCertificateAuthority(directory: scratch.url)
        let inside = try await PushService.start(authority: authority)
        let service = try await PushService.start(authority: authority, redirectingTo: "https://127.0.0.1:\(inside.server.port)")
        let endpoints = try PinnedHTTPClients(
            caFile: authority.caFile, policy: OutboundAddressPolicy(allowsPrivateAddresses: allowsPrivate, resolve: resolve))
        do {
            let signer = try await VAPIDSigner(privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, subject: "mailto:push@example.com")
            try await body(WebPushHub(endpoints: endpoints, signer: signer, maximumConcurrentRequests: 4), service, inside)
        } catch {
            try? await endpoints.shutdown()
            await service.server.stop()
            await inside.server.stop()
            throw error
        }
        try await endpoints.shutdown()
        await service.server.stop()
        await inside.server.stop()
    }

    func subscription(_ endpoint: String) -> String {
        let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation.base64URLEncodedString()
        let secret = Data((0..<16).map { UInt8($0) }).base64URLEncodedString()
        return #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(key)","auth":"\#(secret)"}}"#
    }

    @Test func aPushServiceNameThatResolvesToLoopbackWhenThePushGoesGetsNoRequest() async throws {
        let lookups = Counter()
        // Public when registered, loopback by the time the push goes: DNS rebinding.
        let rebinding: OutboundAddressPolicy.Resolver = { _ in
            lookups.add() == 0 ? [OutboundAddress(literal: "93.184.215.14")!] : [OutboundAddress(literal: "127.0.0.1")!]
        }
        try await withWebPushHub(resolving: rebinding, allowsPrivate: false) { hub, service, _ in
            #expect(try await hub.endpoints.policy.addresses(of: "push.rebind.example").map(\.text) == ["93.184.215.14"])
            let push = job(1, platform: .webpush, channel: subscription("https://push.rebind.example:\(service.server.port)/push/1"))
            let outcomes = await hub.deliver([push], logger: quietLogger)
            guard case .deviceGone(let code, _) = outcomes.first else { throw TestFailure("delivered: \(outcomes)") }
            #expect(code == "webpush.forbiddenAddress")
            #expect(service.received.isEmpty)
        }
    }

    @Test func aPushGoesToTheAddressJudgedWithTheHostsOwnNameOnItsCertificate() async throws {
        let dualStack: OutboundAddressPolicy.Resolver = { _ in [OutboundAddress(literal: "::1")!, OutboundAddress(literal: "127.0.0.1")!] }
        try await withWebPushHub(resolving: dualStack, allowsPrivate: true) { hub, service, _ in
            // The service listens on 127.0.0.1 only: the push reaches it pinned to the IPv4 address the resolver
            // gave after ::1, and TLS still checks the certificate for the name localhost.
            let push = job(1, platform: .webpush, channel: subscription("https://localhost:\(service.server.port)/push/1"))
            #expect(await hub.deliver([push], logger: quietLogger) == [.sent])
            #expect(service.received == ["/push/1"])
        }
    }

    @Test func aPushServicesRedirectIsNotFollowed() async throws {
        try await withWebPushHub(resolving: Self.strict.resolve, allowsPrivate: true) { hub, service, inside in
            let push = job(1, platform: .webpush, channel: subscription("https://127.0.0.1:\(service.server.port)/push/redirect"))
            #expect(await hub.deliver([push], logger: quietLogger) != [.sent])
            #expect(service.received == ["/push/redirect"])
            #expect(inside.received.isEmpty)
        }
    }
}
