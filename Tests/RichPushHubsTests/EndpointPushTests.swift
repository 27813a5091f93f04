import AsyncHTTPClient
import Crypto
import Foundation
import HubTestServers
import RichPushCore
import TestSupport
import Testing

@testable import RichPushHubs

@Suite("Pushes to the hosts devices name")
struct EndpointPushTests {
    /// Runs `body` with a Web Push hub trusting `authority`, whose hosts' HTTP/2 sessions open at most
    /// `maximumConnections` connections, judging addresses by `resolve`; its connections close afterwards.
    func withWebPushHub(
        authority: TestCertificateAuthority, maximumConnections: Int = 8,
        resolving resolve: @escaping OutboundAddressPolicy.Resolver = OutboundAddressPolicy.systemResolve,
        _ body: (WebPushHub) async throws -> Void
    ) async throws {
        let endpoints = try PinnedHTTPClients(
            caFile: authority.caFile, policy: OutboundAddressPolicy(allowsPrivateAddresses: true, resolve: resolve),
            maximumConnections: maximumConnections)
        let signer = try await VAPIDSigner(privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, subject: "mailto:push@example.com")
        do {
            try await body(WebPushHub(endpoints: endpoints, signer: signer, maximumConcurrentRequests: 16))
        } catch {
            try? await endpoints.shutdown()
            throw error
        }
        try await endpoints.shutdown()
    }

    /// Runs `body` with a scripted HTTP/2 push service on loopback and a certificate authority it and the hub trust.
    func withService(
        _ behaviour: ScriptedHTTP2Server.Behaviour, _ body: (ScriptedHTTP2Server, TestCertificateAuthority) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let authority = try TestCertificateAuthority(directory: scratch.url)
        let server = try await ScriptedHTTP2Server.start(behaviour, authority: authority)
        do {
            try await body(server, authority)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// `count` Web Push jobs to subscriptions at `origin`, each to its own path.
    func pushes(_ count: Int, to origin: String) -> [DeliveryJob] {
        pushes(to: (0..<count).map { "\(origin)/push/\($0)" })
    }

    /// A Web Push job to a subscription at each endpoint.
    func pushes(to endpoints: [String]) -> [DeliveryJob] {
        endpoints.enumerated().map { index, endpoint in
            let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation.base64URLEncodedString()
            let secret = Data((0..<16).map { UInt8($0) }).base64URLEncodedString()
            let subscription = #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(key)","auth":"\#(secret)"}}"#
            return job(Int64(index), platform: .webpush, channel: subscription)
        }
    }

    @Test func aPushGoesToItsEndpointsPathAndQueryAsTheEndpointSpellsThem() async throws {
        try await withService(.answerBeforeBody) { server, authority in
            try await withWebPushHub(authority: authority) { hub in
                let origin = "https://127.0.0.1:\(server.port)"
                let jobs = pushes(to: ["\(origin)/push/a%2Fb?token=x%2By&v=1", origin, "\(origin)/push/plain"])
                let outcomes = await hub.deliver(jobs, logger: quietLogger)
                #expect(outcomes == [.sent, .sent, .sent])
                #expect(server.answeredPaths.sorted() == ["/", "/push/a%2Fb?token=x%2By&v=1", "/push/plain"])
            }
        }
    }

    @Test func aPushServiceThatAnswersBeforeReadingTheBodiesGetsEveryPushOfALargeBatch() async throws {
        try await withService(.answerBeforeBody) { server, authority in
            try await withWebPushHub(authority: authority) { hub in
                let outcomes = await hub.deliver(pushes(2000, to: "https://127.0.0.1:\(server.port)"), logger: quietLogger)
                #expect(outcomes.filter { $0 == .sent }.count == 2000)
                #expect(server.answered == 2000)
            }
        }
    }

    /// The service allows 10 streams a connection, which the first push teaches the hub; the batch after it goes
    /// over four connections, each with its share waiting for its streams.
    @Test func aFarPushServiceGetsMoreConnectionsWhileEveryStreamIsTaken() async throws {
        try await withService(.roundTrip(.milliseconds(50), streams: 10)) { server, authority in
            try await withWebPushHub(authority: authority, maximumConnections: 4) { hub in
                let origin = "https://127.0.0.1:\(server.port)"
                #expect(await hub.deliver(pushes(1, to: origin), logger: quietLogger) == [.sent])
                let outcomes = await hub.deliver(pushes(200, to: origin), logger: quietLogger)
                #expect(outcomes == Array(repeating: .sent, count: 200))
                #expect(server.answeredByConnection == [51, 50, 50, 50])
                #expect(server.mostOpenStreams <= 10)
            }
        }
    }

    @Test func aPushServiceThatEndsItsConnectionsWithGoAwayGetsEveryPushOnce() async throws {
        try await withService(.goAwayAfterFiftyRequests) { server, authority in
            try await withWebPushHub(authority: authority) { hub in
                let outcomes = await hub.deliver(pushes(150, to: "https://127.0.0.1:\(server.port)"), logger: quietLogger)
                #expect(outcomes == Array(repeating: .sent, count: 150))
                #expect(server.answered == 150)
                #expect(server.answeredPaths.sorted() == (0..<150).map { "/push/\($0)" }.sorted())
            }
        }
    }

    @Test func anHTTP2PushGoesToTheAddressJudgedWithTheHostsNameOnItsCertificate() async throws {
        // The service listens on 127.0.0.1 only: the pushes reach it pinned to the IPv4 address the resolver gave
        // after ::1, and TLS checks the certificate for the name localhost.
        let dualStack: OutboundAddressPolicy.Resolver = { _ in [OutboundAddress(literal: "::1")!, OutboundAddress(literal: "127.0.0.1")!] }
        try await withService(.answerBeforeBody) { server, authority in
            try await withWebPushHub(authority: authority, resolving: dualStack) { hub in
                #expect(await hub.deliver(pushes(3, to: server.endpoint), logger: quietLogger) == [.sent, .sent, .sent])
                #expect(server.answered == 3)
            }
        }
    }

    @Test func aPushServiceThatSpeaksOnlyHTTP1GetsEveryPushOfEachBatch() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let authority = try TestCertificateAuthority(directory: scratch.url)
        let service = try await OutboundAddressTests.PushService.start(authority: authority)
        do {
            try await withWebPushHub(authority: authority) { hub in
                let origin = "https://127.0.0.1:\(service.server.port)"
                #expect(await hub.deliver(pushes(20, to: origin), logger: quietLogger) == Array(repeating: .sent, count: 20))
                #expect(await hub.deliver(pushes(5, to: origin), logger: quietLogger) == Array(repeating: .sent, count: 5))
                #expect(service.received.count == 25)
            }
        } catch {
            await service.server.stop()
            throw error
        }
        await service.server.stop()
    }
}
