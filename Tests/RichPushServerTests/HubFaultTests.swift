import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import RichPushCore
import RichPushHubs
import TestSupport
import Testing

@testable import RichPushServer

/// A hub that is down or failing in the middle of a send: no delivery is lost to it, it is not stormed with retries,
/// and everything pending goes once it answers. Time moves by the gateway's clock, never by waiting.
@Suite("Hubs that fail", .serialized)
struct HubFaultTests {
    static let devices = 120

    /// A gateway sending to a loopback APNs through a relay that can go down, with `devices` of alice's iPhones.
    func withFailingAPNs(
        _ body: @Sendable (Session, APNsTestServer, HubOutage, Credentials) async throws -> Void
    ) async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let apns = try await APNsTestServer.start(directory: keys)
        let outage = try await HubOutage.relaying(to: apns.server.port)
        let gateway = TestGateway { configuration in
            configuration.hubs.useLoopbackAPNs(apns, endpoint: "https://localhost:\(outage.port)")
            // Several batches, so several claims meet the hub while it is down.
            configuration.dispatchBatchSize = 20
            configuration.dispatchBatchesInFlight = 4
            configuration.maximumInstallationsPerUser = Self.devices
        }
        do {
            try await gateway.run { session in
                let alice = try await session.createUser("alice")
                for phone in 0..<Self.devices { try await session.register("iphone-\(phone)", of: alice, platform: .apns) }
                try await body(session, apns, outage, alice)
            }
            await outage.stop()
            await apns.stop()
        } catch {
            await outage.stop()
            await apns.stop()
            throw error
        }
    }

    /// Sends a notification to alice's devices while the hub is down and waits until each of its deliveries is held
    /// back with the hub's failure as its reason.
    func sendHeldBack(_ session: Session) async throws -> Int64 {
        let id = try await session.send(#"{"message":"Sale","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
        try #require(
            await eventually(within: .seconds(30)) {
                let items = try await deliveries(of: id, session)
                return items.count == Self.devices && items.allSatisfy { $0["reason"] as? String == "apns.unreachable" }
            })
        return id
    }

    func deliveries(of id: Int64, _ session: Session) async throws -> [[String: Any]] {
        try await session.request(.get, "/api/notifications/\(id)/deliveries?limit=1000", as: .admin).json()["items"] as? [[String: Any]] ?? []
    }

    /// Moves the gateway's clock past the circuit's longest opening, `times` times, each time once the probe it let
    /// through has knocked on the hub.
    func probe(_ outage: HubOutage, _ session: Session, times: Int) async throws {
        for _ in 0..<times {
            let knocks = outage.attemptsWhileDown
            session.clock.advance(by: 10)
            try #require(await eventually(within: .seconds(30)) { outage.attemptsWhileDown > knocks }, "no probe reached the hub")
        }
    }

    @Test func aHubThatRefusesConnectionsIsKnockedOnOnceAProbeNotOnceABatch() async throws {
        try await withFailingAPNs { session, apns, outage, _ in
            outage.goDown()
            _ = try await sendHeldBack(session)
            let firstWave = outage.attemptsWhileDown
            #expect(firstWave <= 4, "the batches in flight as the hub went down may each knock once, no more")
            try await probe(outage, session, times: 4)
            #expect(outage.attemptsWhileDown == firstWave + 4, "each probe knocks once")
            #expect(apns.accepted.isEmpty)
        }
    }

    @Test func deliveriesHeldBackWhileTheHubIsDownKeepTheirAttemptsAndAllGoOnceItIsBack() async throws {
        try await withFailingAPNs { session, apns, outage, _ in
            outage.goDown()
            let id = try await sendHeldBack(session)
            // Far more probes than the eight attempts a delivery has: none of them counts as one.
            try await probe(outage, session, times: 10)
            #expect(try await deliveries(of: id, session).allSatisfy { ($0["attempts"] as? Int ?? 99) <= 1 })
            outage.comeBack()
            session.clock.advance(by: 10)
            let status = try await session.waitForState("delivered", of: id, within: .seconds(60))
            #expect(status["sent"] as? Int64 == Int64(Self.devices))
            #expect(status["failed"] as? Int64 == 0)
            #expect(Set(apns.accepted.map(\.deviceToken)).count == Self.devices)
            #expect(apns.accepted.count == Self.devices, "a device got the push twice")
        }
    }

    @Test func aHubThatAnswers503ToEverythingSeesAProbeAtATimeAndGetsEveryPushOnceItRecovers() async throws {
        try await withFailingAPNs { session, apns, _, _ in
            apns.failEveryPush(with: .init(status: 503, reason: "ServiceUnavailable"))
            let id = try await session.send(#"{"message":"Sale","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            try #require(
                await eventually(within: .seconds(30)) {
                    try await deliveries(of: id, session).filter { $0["reason"] as? String == "apns.serviceUnavailable" }.count == Self.devices
                })
            let answered = apns.failedPushes
            #expect(answered <= 4 * 20, "more pushes reached the failing hub than the batches in flight as it failed hold")
            for probe in 1...3 {
                session.clock.advance(by: 10)
                try #require(await eventually(within: .seconds(30)) { apns.failedPushes == answered + probe })
            }
            apns.failEveryPush(with: nil)
            session.clock.advance(by: 10)
            let status = try await session.waitForState("delivered", of: id, within: .seconds(60))
            #expect(status["sent"] as? Int64 == Int64(Self.devices))
            #expect(apns.accepted.count == Self.devices)
        }
    }

    @Test func pushesAHubAskedToRetryLaterGoOnceItsRetryAfterHasPassed() async throws {
        try await withFailingAPNs { session, apns, _, _ in
            apns.failEveryPush(with: .init(status: 429, reason: "TooManyRequests", retryAfter: "120"))
            let id = try await session.send(#"{"message":"Sale","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            try #require(
                await eventually(within: .seconds(30)) {
                    try await deliveries(of: id, session).filter { $0["reason"] as? String == "apns.tooManyRequests" }.count == Self.devices
                })
            apns.failEveryPush(with: nil)
            session.clock.advance(by: 150)
            #expect(try await session.waitForState("delivered", of: id, within: .seconds(60))["sent"] as? Int64 == Int64(Self.devices))
            #expect(apns.accepted.count == Self.devices)
        }
    }
}
