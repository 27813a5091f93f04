import AsyncHTTPClient
import Foundation
import GatewayTesting
import HubTestServers
import NIOHTTP1
import RichPushCore
import TestSupport
import Testing

/// Two real gateway processes on one PostgreSQL database: what a user of either sees is what one process would show.
@Suite("Several gateway processes on PostgreSQL", .serialized)
struct MultiProcessTests {
    static let alice = Credentials(username: "alice", password: "alice-password")

    @Test func aStreamOnOneProcessReceivesWhatIsCreatedAndChangedOnTheOther() async throws {
        let cluster = try await GatewayCluster(count: 2)
        defer { cluster.cleanUp() }
        try await cluster.start()
        #expect(
            try await cluster[0].request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#).status == 201)
        let registered = try await cluster[0].request(
            .PUT, "/api/installations/laptop", as: Self.alice, json: #"{"platform":"direct","pushChannel":"laptop"}"#)
        #expect(registered.status == 201)
        let stream = StreamClient(port: cluster[0].port, user: Self.alice, query: "?installationId=laptop")
        defer { stream.close() }
        try await stream.waitUntilOpen()

        let created = try await cluster[1].request(
            .POST, "/api/notifications", as: .admin,
            json: #"{"message":"From the other side","richType":"text","text":"x","audience":"username:alice"}"#)
        let id = try #require(ProcessTests.id(in: created.body))
        let rich = try #require(await stream.next(within: .seconds(5)))
        #expect(StreamEvent(rich)?.body == .rich(richId: id, richType: .text, richMessage: "From the other side"))

        // Only the other process writes this event, so only the store's signal can bring it here.
        let read = try await cluster[1].request(.PATCH, "/api/me/notifications/\(id)", as: Self.alice, json: #"{"readState":"read"}"#)
        #expect(read.status == 200)
        let state = try #require(await stream.next(within: .seconds(5)))
        #expect(StreamEvent(state)?.body == .state(richId: id, readState: .read, userActionState: .noInteraction))
    }

    @Test func aPasswordChangedOnOneProcessIsRefusedOnTheOtherWithinSeconds() async throws {
        let cluster = try await GatewayCluster(count: 2)
        defer { cluster.cleanUp() }
        try await cluster.start()
        _ = try await cluster[0].request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
        // The other process verifies and caches the old password.
        #expect(try await cluster[1].request(.GET, "/api/users/me", as: Self.alice).status == 200)

        let changed = try await cluster[0].request(
            .PUT, "/api/users/alice/password", as: Self.alice, json: #"{"password":"a-new-password","currentPassword":"\#(Self.alice.password)"}"#)
        #expect(changed.status == 204)
        let start = ContinuousClock.now
        try #require(try await eventually(within: .seconds(10)) { try await cluster[1].request(.GET, "/api/users/me", as: Self.alice).status == 401 })
        #expect(ContinuousClock.now - start < .seconds(5))
        let renewed = Credentials(username: "alice", password: "a-new-password")
        #expect(try await cluster[1].request(.GET, "/api/users/me", as: renewed).status == 200)
    }

    @Test func aUserRemovedOnOneProcessIsRefusedOnTheOtherWithinSeconds() async throws {
        let cluster = try await GatewayCluster(count: 2)
        defer { cluster.cleanUp() }
        try await cluster.start()
        _ = try await cluster[0].request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
        #expect(try await cluster[1].request(.GET, "/api/users/me", as: Self.alice).status == 200)

        #expect(try await cluster[0].request(.DELETE, "/api/users/alice", as: .admin).status == 204)
        let start = ContinuousClock.now
        try #require(try await eventually(within: .seconds(10)) { try await cluster[1].request(.GET, "/api/users/me", as: Self.alice).status == 401 })
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aTokenRevokedOnOneProcessIsRefusedOnTheOtherWithinSeconds() async throws {
        let cluster = try await GatewayCluster(count: 2)
        defer { cluster.cleanUp() }
        try await cluster.start()
        _ = try await cluster[0].request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
        let created = try await cluster[0].request(.POST, "/api/tokens", as: Self.alice, json: #"{"name":"laptop"}"#)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])
        let token = Credentials(username: "alice", password: try #require(json["token"] as? String))
        #expect(try await cluster[1].request(.GET, "/api/users/me", as: token).status == 200)

        #expect(try await cluster[0].request(.DELETE, "/api/tokens/\(try #require(json["id"] as? String))", as: Self.alice).status == 204)
        let start = ContinuousClock.now
        try #require(try await eventually(within: .seconds(10)) { try await cluster[1].request(.GET, "/api/users/me", as: token).status == 401 })
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test func aRateLimitHoldsWithinTheNumberOfProcesses() async throws {
        let cluster = try await GatewayCluster(count: 2, extraArguments: ["--rate-limit", "3"])
        defer { cluster.cleanUp() }
        try await cluster.start()
        var admitted = 0
        for round in 0..<10 {
            if try await cluster[round % 2].request(.GET, "/api/users/me", as: .admin).status == 200 { admitted += 1 }
        }
        #expect(admitted == 6)
    }

    @Test func campaignsSentToOneUserThroughBothProcessesAtOnceNeverExceedTheCap() async throws {
        let cluster = try await GatewayCluster(count: 2, extraArguments: ["--frequency-cap", "2/24h"])
        defer { cluster.cleanUp() }
        try await cluster.start()
        _ = try await cluster[0].request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
        let registered = try await cluster[0].request(
            .PUT, "/api/installations/laptop", as: Self.alice, json: #"{"platform":"direct","pushChannel":"laptop"}"#)
        #expect(registered.status == 201)
        // Six campaigns at once, three through each process, so both dispatchers hold alice's deliveries together.
        let ids = try await withThrowingTaskGroup(of: Int64?.self) { group in
            for index in 0..<6 {
                group.addTask {
                    let created = try await cluster[index % 2].request(
                        .POST, "/api/notifications", as: .admin,
                        json: #"{"message":"Sale \#(index)","richType":"text","text":"x","audience":"username:alice"}"#)
                    return ProcessTests.id(in: created.body)
                }
            }
            return try await group.reduce(into: [Int64]()) { ids, id in if let id { ids.append(id) } }
        }
        try #require(ids.count == 6)
        var statuses: [[String: Any]] = []
        try #require(
            try await eventually(within: .seconds(60)) {
                statuses = []
                for id in ids {
                    let body = try await cluster[1].request(.GET, "/api/notifications/\(id)/status", as: .admin).body
                    guard let status = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                        status["state"] as? String == "delivered"
                    else { return false }
                    statuses.append(status)
                }
                return true
            })
        #expect(statuses.map { $0["sent"] as? Int ?? 0 }.reduce(0, +) == 2)
        #expect(statuses.map { $0["capped"] as? Int ?? 0 }.reduce(0, +) == 4)
    }

    @Test func wrongPasswordsSpreadOverBothProcessesThrottleTheUsernameOnBoth() async throws {
        let cluster = try await GatewayCluster(count: 2)
        defer { cluster.cleanUp() }
        try await cluster.start()
        let wrong = Credentials(username: "admin", password: "not-the-password")
        for gateway in cluster.gateways {
            for _ in 0..<5 { #expect(try await gateway.request(.GET, "/api/users/me", as: wrong).status == 401) }
        }
        for gateway in cluster.gateways {
            try #require(try await eventually(within: .seconds(5)) { try await gateway.request(.GET, "/api/users/me", as: wrong).status == 429 })
            #expect(try await gateway.request(.GET, "/api/users/me", as: .admin).status == 429)
        }
    }

    @Test func tenThousandDevicesWithBothProcessesDispatchingAreEachSentExactlyOnce() async throws {
        try await withFCM { fcm, cluster in
            let id = try await Self.fanOut(to: 10_000, on: cluster)
            try #require(await eventually(within: .seconds(300)) { fcm.accepted.count >= 10_000 })
            try #require(
                try await eventually(within: .seconds(30)) {
                    try await cluster[0].request(.GET, "/api/notifications/\(id)/status", as: .admin).body.contains(#""state":"delivered""#)
                })
            // A delivery claimed twice, by a process that took over another's lease, shows two attempts, even while
            // its second push is still on its way to the hub.
            let csv = try await cluster[0].request(.GET, "/api/notifications/\(id)/deliveries?format=csv", as: .admin).body
            let attempts = csv.split(separator: "\r\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[7] }
            #expect(attempts.count == 10_000)
            #expect(attempts.allSatisfy { $0 == "1" }, "attempts: \(Dictionary(grouping: attempts, by: { $0 }).mapValues(\.count))")
            let byToken = Dictionary(grouping: fcm.accepted, by: \.token)
            #expect(byToken.count == 10_000)
            #expect(byToken.values.allSatisfy { $0.count == 1 })
            let sent = [try await GatewayCluster.sentDeliveries(by: cluster[0]), try await GatewayCluster.sentDeliveries(by: cluster[1])]
            #expect(sent.reduce(0, +) == 10_000)
            #expect(sent.allSatisfy { $0 > 0 }, "one process did all the sending: \(sent)")
            // Both processes counted what they finished into the notification's tallies, which the status reads.
            let status = try await cluster[1].request(.GET, "/api/notifications/\(id)/status", as: .admin).body
            #expect(status.contains(#""sent":10000"#) && status.contains(#""pending":0"#), "\(status)")
            #expect(fcm.violations.isEmpty)
        }
    }

    @Test func whenOneProcessIsKilledMidFanOutTheOtherFinishesTheWork() async throws {
        try await withFCM { fcm, cluster in
            // Slow answers keep a batch in flight on each process, as across the internet.
            fcm.delayAnswers(by: .milliseconds(20))
            let id = try await Self.fanOut(to: 10_000, on: cluster)
            try #require(await eventually(within: .seconds(120)) { fcm.accepted.count >= 500 })
            cluster[0].kill()
            let beforeKill = fcm.accepted.count
            #expect(beforeKill < 10_000, "the send finished before the kill")
            fcm.delayAnswers(by: .zero)
            try #require(await eventually(within: .seconds(300)) { Set(fcm.accepted.map(\.token)).count == 10_000 })
            try #require(
                try await eventually(within: .seconds(30)) {
                    try await cluster[1].request(.GET, "/api/notifications/\(id)/status", as: .admin).body.contains(#""state":"delivered""#)
                })
            // Only the pushes the dead process had in flight, unrecorded, can have gone out twice.
            let repeated = Dictionary(grouping: fcm.accepted, by: \.token).values.filter { $0.count > 1 }
            #expect(repeated.count <= 500)
            #expect(repeated.allSatisfy { $0.count == 2 })
            #expect(fcm.violations.isEmpty)
        }
    }

    /// Two processes configured with the loopback FCM server, each on one connection to it: the pushes a killed
    /// process can have had in flight, which its successor may send again, are then at most the server's 100 streams
    /// and the answers not recorded yet.
    private func withFCM(_ body: (FCMTestServer, GatewayCluster) async throws -> Void) async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let fcm = try await FCMTestServer.start(directory: keys)
        let cluster: GatewayCluster
        do {
            cluster = try await GatewayCluster(
                count: 2,
                extraArguments: [
                    "--fcm-service-account-file", fcm.serviceAccountFile, "--fcm-endpoint", fcm.endpoint, "--tls-ca-file", fcm.authority.caFile,
                    "--hub-max-connections", "1",
                ])
        } catch {
            await fcm.stop()
            throw error
        }
        // The gateways go before the hub, so the hub never shuts down under connections that may still open streams.
        do {
            try await cluster.start()
            try await body(fcm, cluster)
            cluster.cleanUp()
            await fcm.stop()
        } catch {
            cluster.cleanUp()
            await fcm.stop()
            throw error
        }
    }

    /// Registers `devices` FCM installations through the first process and sends to all of them from the second.
    private static func fanOut(to devices: Int, on cluster: GatewayCluster) async throws -> Int64 {
        _ = try await cluster[0].request(.POST, "/api/users", as: .admin, json: #"{"username":"alice","password":"alice-password"}"#)
        try await cluster[0].importInstallations(devices) {
            #"{"installationId":"pixel-\#($0)","owner":"alice","platform":"fcm","pushChannel":"token-\#($0)","tags":["topic:sale"]}"#
        }
        let created = try await cluster[1].request(
            .POST, "/api/notifications", as: .admin, json: #"{"message":"Flash sale","richType":"text","text":"x","audience":"topic:sale"}"#)
        return try #require(ProcessTests.id(in: created.body))
    }
}
