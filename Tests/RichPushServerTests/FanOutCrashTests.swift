import AsyncHTTPClient
import Foundation
import HubTestServers
import NIOHTTP1
import RichPushHubs
import TestSupport
import Testing

/// A `kill -9` in the middle of a large APNs send, with the real process.
@Suite("Crash safety under fan-out", .serialized)
struct FanOutCrashTests {
    static let devices = 10_000
    /// The dispatcher's batches in flight or back but not yet recorded, four of 1000: the pushes whose answers may be
    /// unrecorded when the process dies.
    static let unrecordedAtMost = 4 * 1000

    @Test func aKillDuringATenThousandDeviceSendLosesNoDeviceAndRepeatsOnlyUnrecordedPushesWithTheirApnsId() async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-fanout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let apns = try await APNsTestServer.start(directory: keys)
        let gateway = try GatewayProcess(extraArguments: [
            "--apns-key-file", apns.keyFile, "--apns-key-id", APNsTestServer.keyId, "--apns-team-id", APNsTestServer.teamId,
            "--apns-topic", APNsTestServer.topic, "--apns-endpoint", apns.endpoint, "--tls-ca-file", apns.authority.caFile,
        ])
        // The gateway goes before the hub on either path, so the hub never shuts down under a connection that may still
        // open streams.
        do {
            try await gateway.start()
            _ = try await gateway.request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
            for first in stride(from: 0, to: Self.devices, by: 5000) {
                let entries = (first..<first + 5000).map {
                    #"{"installationId":"phone-\#($0)","owner":"alice","platform":"apns","pushChannel":"\#(String(format: "%064x", $0))","tags":["topic:crash"]}"#
                }
                let imported = try await gateway.request(
                    .POST, "/api/installations/import", as: .admin, json: #"{"installations":[\#(entries.joined(separator: ","))]}"#)
                #expect(imported.status == 200, "\(imported.body)")
            }
            // Slow answers keep many requests in flight, as across the internet.
            apns.delayAnswers(by: .milliseconds(5))
            let created = try await gateway.request(
                .POST, "/api/notifications", as: .admin, json: #"{"message":"Flash sale","richType":"text","text":"x","audience":"topic:crash"}"#)
            let id = try #require(ProcessTests.id(in: created.body))
            try #require(await eventually(within: .seconds(240)) { apns.accepted.count >= 1000 })
            gateway.kill()
            let beforeCrash = apns.accepted.count
            #expect(beforeCrash < Self.devices, "the send finished before the kill")
            apns.delayAnswers(by: .zero)
            try await gateway.start()
            try #require(await eventually(within: .seconds(480)) { Set(apns.accepted.map(\.deviceToken)).count == Self.devices })

            let byDevice = Dictionary(grouping: apns.accepted, by: \.deviceToken)
            #expect(byDevice.count == Self.devices)
            let repeated = byDevice.values.filter { $0.count > 1 }
            #expect(repeated.count <= Self.unrecordedAtMost)
            for pushes in repeated {
                #expect(Set(pushes.map(\.apnsId)).count == 1, "a repeated push carries another apns-id")
            }
            let token = try #require(byDevice.keys.first)
            let device = "phone-\(Int(token, radix: 16)!)"
            #expect(byDevice[token]?.first?.apnsId == APNsHub.apnsId(notificationId: id, installationId: device))
            #expect(apns.violations.isEmpty)
            gateway.cleanUp()
            await apns.stop()
        } catch {
            gateway.cleanUp()
            await apns.stop()
            throw error
        }
    }
}
