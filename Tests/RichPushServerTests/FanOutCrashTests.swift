import AsyncHTTPClient
import Foundation
import GatewayTesting
import HubTestServers
import NIOHTTP1
import RichPushHubs
import TestPostgres
import TestSupport
import Testing

/// A `kill -9` in the middle of a large APNs send, with the real process.
@Suite("Crash safety under fan-out", .serialized)
struct FanOutCrashTests {
    /// The database a gateway process keeps its outbox in.
    enum Database: CaseIterable {
        /// The embedded SQLite database, which only this process writes: a claim carries the outcomes answered since
        /// the last.
        case sqlite
        /// A PostgreSQL database other processes could share: outcomes are recorded beside the claims.
        case postgresql
    }

    /// Runs `body` with a gateway process on `database` sending to a loopback APNs, `devices` of alice's iPhones tagged
    /// `topic:crash`.
    func withAPNsDevices(
        _ devices: Int, on database: Database = .sqlite, arguments: [String] = [], _ body: (GatewayProcess, APNsTestServer) async throws -> Void
    ) async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-fanout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let databaseURL = database == .postgresql ? try await TestPostgres.createDatabase() : nil
        defer { databaseURL.map(TestPostgres.dropDatabase) }
        // A restarted process finds its own claims in a shared database only once their lease runs out.
        let databaseArguments =
            databaseURL.map { ["--database-url", $0, "--dispatch-lease", String(GatewayCluster.leaseSeconds)] } ?? []
        let apns = try await APNsTestServer.start(directory: keys)
        let gateway = try GatewayProcess(
            extraArguments: [
                "--apns-key-file", apns.keyFile, "--apns-key-id", APNsTestServer.keyId, "--apns-team-id", APNsTestServer.teamId,
                "--apns-topic", APNsTestServer.topic, "--apns-endpoint", apns.endpoint, "--tls-ca-file", apns.authority.caFile,
            ] + databaseArguments + arguments)
        // The gateway goes before the hub on either path, so the hub never shuts down under a connection that may still
        // open streams.
        do {
            try await gateway.start()
            _ = try await gateway.request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
            try await gateway.importInstallations(devices) {
                #"{"installationId":"phone-\#($0)","owner":"alice","platform":"apns","pushChannel":"\#(String(format: "%064x", $0))","tags":["topic:crash"]}"#
            }
            try await body(gateway, apns)
            gateway.cleanUp()
            await apns.stop()
        } catch {
            gateway.cleanUp()
            await apns.stop()
            throw error
        }
    }

    /// Sends a campaign to every device, kills the gateway once APNs has accepted `killAfter` pushes, restarts it and
    /// waits until every device has the push; answers each device's pushes.
    func killAndRestart(_ gateway: GatewayProcess, _ apns: APNsTestServer, devices: Int, killAfter: Int) async throws -> (
        id: Int64, byDevice: [String: [APNsTestServer.Push]]
    ) {
        let created = try await gateway.request(
            .POST, "/api/notifications", as: .admin, json: #"{"message":"Flash sale","richType":"text","text":"x","audience":"topic:crash"}"#)
        let id = try #require(ProcessTests.id(in: created.body))
        try #require(await eventually(within: .seconds(240)) { apns.accepted.count >= killAfter })
        gateway.kill()
        #expect(apns.accepted.count < devices, "the send finished before the kill")
        apns.delayAnswers(by: .zero)
        apns.paceAnswers(every: .zero)
        try await gateway.start()
        try #require(await eventually(within: .seconds(480)) { Set(apns.accepted.map(\.deviceToken)).count == devices })
        return (id, Dictionary(grouping: apns.accepted, by: \.deviceToken))
    }

    @Test func aKillDuringATenThousandDeviceSendLosesNoDeviceAndRepeatsOnlyUnrecordedPushesWithTheirApnsId() async throws {
        let devices = 10_000
        // Four batches of 1000 in flight, so that what a kill can repeat is well under the devices.
        try await withAPNsDevices(devices, arguments: ["--dispatch-batches-in-flight", "4"]) { gateway, apns in
            // Slow answers keep many requests in flight, as across the internet.
            apns.delayAnswers(by: .milliseconds(5))
            let (id, byDevice) = try await killAndRestart(gateway, apns, devices: devices, killAfter: 1000)
            #expect(byDevice.count == devices)
            let repeated = byDevice.values.filter { $0.count > 1 }
            // At most the dispatcher's four batches of 1000 were out, in flight or answered but not yet recorded.
            #expect(repeated.count <= 4 * 1000)
            for pushes in repeated {
                #expect(Set(pushes.map(\.apnsId)).count == 1, "a repeated push carries another apns-id")
            }
            let token = try #require(byDevice.keys.first)
            let device = "phone-\(Int(token, radix: 16)!)"
            #expect(byDevice[token]?.first?.apnsId == APNsHub.apnsId(notificationId: id, installationId: device))
            #expect(apns.violations.isEmpty)
        }
    }

    /// A hub that answers one push every 3 ms keeps a batch of 1000 out for seconds; what it answered is recorded
    /// meanwhile, not when the batch is back. One connection to it: the streams of more would hold more pushes in
    /// flight, which a kill sends again too, and the bound is on the answered ones.
    @Test(arguments: Database.allCases) func aKillDuringASendToASlowHubRepeatsOnlyThePushesAnsweredJustBefore(_ database: Database) async throws {
        let devices = 2000
        let pace = Duration.milliseconds(3)
        try await withAPNsDevices(devices, on: database, arguments: ["--hub-max-connections", "1"]) { gateway, apns in
            apns.paceAnswers(every: pace)
            let (_, byDevice) = try await killAndRestart(gateway, apns, devices: devices, killAfter: 600)
            #expect(byDevice.count == devices)
            // What was answered since the last 250 ms beat is unrecorded, and so is the beat before's while its record
            // commits: two windows of answers, with as many again for a loaded machine. Recorded only with their
            // batch, all 600 would repeat.
            let answeredInAWindow = Int(Duration.milliseconds(250) / pace)
            let repeated = byDevice.values.filter { $0.count > 1 }.count
            #expect(repeated <= 4 * answeredInAWindow, "\(repeated) devices got the push twice")
        }
    }

    /// What a crash can send again is bounded by what the dispatcher keeps out at once.
    @Test func theHubNeverHasMoreRequestsOpenThanTheBatchesInFlightHold() async throws {
        let devices = 100
        let arguments = ["--dispatch-batch-size", "5", "--dispatch-batches-in-flight", "2"]
        try await withAPNsDevices(devices, arguments: arguments) { gateway, apns in
            apns.delayAnswers(by: .milliseconds(20))
            _ = try await gateway.request(
                .POST, "/api/notifications", as: .admin, json: #"{"message":"Flash sale","richType":"text","text":"x","audience":"topic:crash"}"#)
            try #require(await eventually(within: .seconds(120)) { apns.accepted.count >= devices })
            #expect(Set(apns.accepted.map(\.deviceToken)).count == devices)
            #expect(apns.mostRequestsOpenAtOnce <= 2 * 5)
            #expect(apns.mostRequestsOpenAtOnce > 1, "the batches went one push at a time")
        }
    }
}
