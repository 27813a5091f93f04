import AsyncHTTPClient
import Foundation
import GatewayTesting
import HubTestServers
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import TestPostgres
import TestSupport
import Testing

/// The parts around a running `richpush serve` failing in the middle of a campaign, as they fail in the field: the
/// database stopped, a hub refusing connections or answering 503, the disk under SQLite full. Each fault lasts as long
/// as it does in the field, since the process runs on the system's time: nothing accepted is lost, no device gets a
/// push twice beyond the pushes in flight as the fault struck, and the API says what is going on meanwhile.
@Suite("Faults around a running gateway", .serialized)
struct FaultTests {
    /// The devices a fan-out goes to, unless a test names more.
    static let devices = 5_000
    static let campaign = #"{"message":"Flash sale","richType":"text","text":"x","audience":"topic:fault"}"#

    /// A gateway process with `arguments` sending to a loopback APNs through a relay that can go down, with `devices`
    /// of alice's iPhones tagged `topic:fault`; the hub answers one push every 2 ms, so a send lasts seconds.
    func withGateway(
        devices: Int = FaultTests.devices, arguments: [String] = [], _ body: (GatewayProcess, APNsTestServer, HubOutage) async throws -> Void
    ) async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let apns = try await APNsTestServer.start(directory: keys)
        let outage = try await HubOutage.relaying(to: apns.server.port)
        let gateway = try GatewayProcess(
            extraArguments: [
                "--apns-key-file", apns.keyFile, "--apns-key-id", APNsTestServer.keyId, "--apns-team-id", APNsTestServer.teamId,
                "--apns-topic", APNsTestServer.topic, "--apns-endpoint", "https://localhost:\(outage.port)", "--tls-ca-file",
                apns.authority.caFile,
            ] + arguments)
        do {
            try await gateway.start()
            _ = try await gateway.request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
            try await gateway.importInstallations(devices) {
                #"{"installationId":"phone-\#($0)","owner":"alice","platform":"apns","pushChannel":"\#(String(format: "%064x", $0))","tags":["topic:fault"]}"#
            }
            apns.paceAnswers(every: .milliseconds(2))
            try await body(gateway, apns, outage)
            gateway.cleanUp()
            await outage.stop()
            await apns.stop()
        } catch {
            gateway.cleanUp()
            await outage.stop()
            await apns.stop()
            throw error
        }
    }

    /// Waits until each of `devices` devices has its push and the status says delivered; answers each device's
    /// pushes.
    func everyDeviceReached(
        _ id: Int64, devices: Int = FaultTests.devices, _ gateway: GatewayProcess, _ apns: APNsTestServer
    ) async throws -> [String: [APNsTestServer.Push]] {
        apns.paceAnswers(every: .zero)
        try #require(
            await eventually(within: .seconds(120)) { Set(apns.accepted.map(\.deviceToken)).count == devices },
            "\(Set(apns.accepted.map(\.deviceToken)).count) of \(devices) devices reached:\n\(gateway.log.suffix(3000))")
        try #require(
            try await eventually(within: .seconds(30)) {
                try await gateway.request(.GET, "/api/notifications/\(id)/status", as: .admin).body.contains(#""state":"delivered""#)
            })
        return Dictionary(grouping: apns.accepted, by: \.deviceToken)
    }

    /// What ``pendingByReason(_:_:)`` counts a delivery under that has not been tried yet.
    static let noReason = "none"

    /// How many of the deliveries of `id` are pending, by the reason each gives (``noReason`` for one not tried yet):
    /// what a marketer reads in its deliveries list.
    func pendingByReason(_ id: Int64, _ gateway: GatewayProcess) async throws -> [String: Int] {
        var reasons: [String: Int] = [:]
        var after: Int64? = 0
        while let page = after {
            let answer = try await gateway.request(.GET, "/api/notifications/\(id)/deliveries?limit=1000&after=\(page)", as: .admin)
            let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
            for item in object?["items"] as? [[String: Any]] ?? [] where item["state"] as? String == "pending" {
                reasons[item["reason"] as? String ?? Self.noReason, default: 0] += 1
            }
            after = (object?["next"] as? NSNumber)?.int64Value
        }
        return reasons
    }

    /// The last of the gateway's warnings and errors, which say what it did about a fault.
    static func complaints(in log: String) -> String {
        log.split(separator: "\n").filter { $0.contains(" warning ") || $0.contains(" error ") }.suffix(30).joined(separator: "\n")
    }

    func send(_ gateway: GatewayProcess) async throws -> Int64 {
        let created = try await gateway.request(.POST, "/api/notifications", as: .admin, json: Self.campaign)
        return try #require(ProcessTests.id(in: created.body), "\(created)")
    }

    @Test func postgreSQLStoppedForEightSecondsMidSendLosesNoDeviceRepeatsNoneAndTheAPIAnswers503Meanwhile() async throws {
        let database = try await PrivatePostgresServer.start()
        do {
            try await withGateway(devices: 20_000, arguments: ["--database-url", database.url]) { gateway, apns, _ in
                let id = try await send(gateway)
                try #require(await eventually(within: .seconds(60)) { apns.accepted.count >= 200 })
                try await database.stop()
                let stopped = ContinuousClock.now
                #expect(
                    try await eventually(within: .seconds(5)) { try await gateway.request(.GET, "/health/ready", as: nil).status == 503 },
                    "readiness did not answer 503 within 5 s of the stop")
                let asked = ContinuousClock.now
                let refused = try await gateway.answer(
                    .POST, "/api/notifications", as: .admin, body: (ByteBuffer(string: Self.campaign), "application/json"))
                #expect(refused.status == 503)
                #expect(refused.body.contains(#""code":"store.unavailable""#))
                #expect(refused.headers.first(name: "Retry-After") == "2")
                #expect(ContinuousClock.now - asked < .seconds(5), "the POST waited past the request deadline")
                #expect(gateway.process?.isRunning == true)
                // The outage the field saw: eight seconds.
                try await Task.sleep(until: stopped + .seconds(8))
                try await database.startAgain()
                let back = ContinuousClock.now
                #expect(try await eventually(within: .seconds(5)) { try await gateway.request(.GET, "/health/ready", as: nil).status == 200 })
                #expect(ContinuousClock.now - back < .seconds(5), "readiness answered 200 only \(ContinuousClock.now - back) after the return")
                let byDevice = try await everyDeviceReached(id, devices: 20_000, gateway, apns)
                let repeated = byDevice.values.filter { $0.count > 1 }.count
                #expect(repeated == 0, "\(repeated) devices got the push twice; the gateway's complaints:\n\(Self.complaints(in: gateway.log))")
                #expect(apns.violations.isEmpty)
            }
            await database.remove()
        } catch {
            await database.remove()
            throw error
        }
    }

    @Test func aHubRefusingConnectionsForTwentySecondsIsProbedAHandfulOfTimesAndThenGetsEveryPush() async throws {
        // Four batches in flight and 256 streams a connection, the figures the bounds below count with: what the cut
        // connections can have held is then well under the devices.
        try await withGateway(arguments: ["--dispatch-batches-in-flight", "4", "--hub-streams", "256"]) { gateway, apns, outage in
            let id = try await send(gateway)
            try #require(await eventually(within: .seconds(60)) { apns.accepted.count >= 200 })
            outage.goDown()
            let down = ContinuousClock.now
            // What the batches in flight as the hub went down knock, and then the probes alone. Each of the dispatcher's
            // 4 batches in flight sends what the cut connections left unprocessed again once, on the connections it then
            // needs (4 of 256 streams for 1,000 pushes), each refused; the open circuit holds every later batch back.
            try await Task.sleep(until: down + .seconds(2))
            let afterTheFirstWave = outage.attemptsWhileDown
            try await Task.sleep(until: down + .seconds(20))
            let probes = outage.attemptsWhileDown - afterTheFirstWave
            #expect(afterTheFirstWave <= 4 * 4, "\(afterTheFirstWave) connections as the hub went down")
            #expect(probes <= 5, "\(probes) connections in 18 s of a hub that refuses them: one probe at a time backs off to 8 s")
            let waiting = try await pendingByReason(id, gateway)
            #expect(waiting.keys.filter { $0 != Self.noReason } == ["apns.unreachable"], "the pending deliveries' reasons: \(waiting)")
            #expect(waiting.values.reduce(0, +) >= Self.devices - apns.accepted.count)
            outage.comeBack()
            let byDevice = try await everyDeviceReached(id, gateway, apns)
            // Only the pushes in flight on the cut connections can have gone twice: the hub took them, and their
            // answers were lost with the connections. At most 256 streams on each of up to 8 connections.
            let repeated = byDevice.values.filter { $0.count > 1 }
            #expect(repeated.count <= 8 * 256, "more pushes went twice than the connections hold in flight")
            #expect(repeated.allSatisfy { Set($0.compactMap(\.apnsId)).count == 1 }, "a push sent again had another apns-id")
        }
    }

    @Test func aHubAnswering503ToEverythingForFifteenSecondsSeesAProbeAtATimeAndThenGetsEveryPushOnce() async throws {
        try await withGateway { gateway, apns, _ in
            let id = try await send(gateway)
            try #require(await eventually(within: .seconds(60)) { apns.accepted.count >= 200 })
            // A hub in trouble answers at once.
            apns.paceAnswers(every: .zero)
            apns.failEveryPush(with: .init(status: 503, reason: "ServiceUnavailable"))
            let unsent = Self.devices - apns.accepted.count
            let failing = ContinuousClock.now
            try await Task.sleep(until: failing + .seconds(15))
            // Without the circuit each retry wave of the unsent deliveries met the hub again; with it, each meets it
            // once, as it was in flight when the hub failed, and then the probes alone.
            let beyondTheFirstMeeting = apns.failedPushes - unsent
            #expect(beyondTheFirstMeeting <= 5, "\(beyondTheFirstMeeting) pushes more than the \(unsent) unsent reached a hub answering 503 for 15 s")
            let waiting = try await pendingByReason(id, gateway)
            #expect(waiting.keys.filter { $0 != Self.noReason } == ["apns.serviceUnavailable"], "the pending deliveries' reasons: \(waiting)")
            // A push or two the hub took as it turned may have gone after `unsent` was counted.
            #expect((unsent - 10...unsent).contains(waiting.values.reduce(0, +)), "\(waiting) pending of \(unsent) unsent")
            apns.failEveryPush(with: nil)
            let byDevice = try await everyDeviceReached(id, gateway, apns)
            #expect(byDevice.values.filter { $0.count > 1 }.count == 0, "a device got the push twice")
            let status = try await gateway.request(.GET, "/api/notifications/\(id)/status", as: .admin).body
            #expect(status.contains(#""failed":0"#), "deliveries used up their attempts on a hub that was down: \(status)")
        }
    }

    @Test func aFullDiskRefusesAnUploadWith507ServesWhatWasStoredAndTakesTheNextUploadOnceSpaceIsFreed() async throws {
        try await FillableDisk.with(size: 32 * 1024 * 1024) { disk in
            let gateway = try GatewayProcess(dataDirectory: disk.mountPoint.appendingPathComponent("data"))
            defer { gateway.cleanUp() }
            try await gateway.start()
            let sent = try await gateway.request(
                .POST, "/api/notifications", as: .admin, json: #"{"message":"m","richType":"text","text":"kept","audience":"username:admin"}"#)
            let id = try #require(ProcessTests.id(in: sent.body))
            try disk.fill(leaving: 1024 * 1024)
            let image = try await noisePNG()
            let refused = try await gateway.answer(.POST, "/api/images", as: .admin, body: (ByteBuffer(data: image), "image/png"))
            #expect(refused.status == 507)
            #expect(refused.body.contains(#""code":"store.full""#))
            let payload = try await gateway.request(.GET, "/api/notifications/\(id)", as: .admin)
            #expect(payload.status == 200)
            #expect(payload.body == "kept")
            try disk.freeSpace()
            let stored = try await gateway.answer(.POST, "/api/images", as: .admin, body: (ByteBuffer(data: image), "image/png"))
            #expect(stored.status == 201)
            #expect(gateway.process?.isRunning == true)
        }
    }
}
