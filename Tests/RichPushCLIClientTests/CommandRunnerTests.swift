import Foundation
import GatewayTesting
import RichPushCore
import Testing

@testable import RichPushCLIClient

@Suite("Sending and following from the command line")
struct CommandRunnerTests {
    func runner(_ client: APIClient, _ capture: CapturedTerminal) -> CommandRunner {
        CommandRunner(client: client, terminal: capture.terminal, follower: DeliveryFollower(client: client, interval: .milliseconds(50)))
    }

    @Test func sendWithWaitPrintsOneLinePerChangeAndExitsZeroWhenDelivered() async throws {
        try await LiveGateway.run { _, admin in
            let mark = try await admin.createUser("mark", role: .marketer)
            let alice = try await admin.createUser("alice", role: .member)
            try await alice.register("laptop")
            let capture = CapturedTerminal()
            let plan = SendPlan(
                payload: .image(path: "logo.png", bytes: try fixture("valid-rgba.png")), message: "Hi", audience: "username:alice", wait: true)
            let exit = await runner(mark, capture).send(plan)
            #expect(exit == .success)
            let lines = capture.lines
            #expect(lines.first?.hasPrefix("image 1: logo.png, ") == true)
            #expect(lines.contains("notification 1 sending to username:alice"))
            #expect(lines.last == "notification 1 delivered: 1 of 1 sent, 0 failed; 0 fetched, 0 displayed, 0 opened, 0 dismissed; reached 0 of 1")
            #expect(!capture.standardOutput.contains("\r"))
            #expect(capture.standardError.isEmpty)
        }
    }

    @Test func aJPEGCampaignWithTitleAndDataIsStoredAsSent() async throws {
        try await LiveGateway.run { _, admin in
            let mark = try await admin.createUser("mark", role: .marketer)
            let alice = try await admin.createUser("alice", role: .member)
            try await alice.register("laptop")
            let capture = CapturedTerminal()
            var plan = SendPlan(payload: .image(path: "sale.jpg", bytes: try fixture("valid.jpg")), message: "Hi", audience: "username:alice")
            plan.content = PushContent(title: "Winter sale", data: ["campaign": "w1"])
            #expect(await runner(mark, capture).send(plan) == .success)
            let info = try await mark.notification(1)
            #expect(info.title == "Winter sale")
            #expect(info.data == ["campaign": "w1"])
        }
    }

    @Test func aPartialDeliveryExitsTwoAndListsTheFailedDevice() async throws {
        try await LiveGateway.run { _, admin in
            let alice = try await admin.createUser("alice", role: .member)
            try await alice.register("laptop")
            try await alice.register("phone", platform: .apns)
            let capture = CapturedTerminal()
            let exit = await runner(admin, capture).send(SendPlan(payload: .text("t"), message: "Hi", audience: "username:alice", wait: true))
            #expect(exit == .partial)
            #expect(
                capture.lines.suffix(2) == [
                    "notification 1 partial: 1 of 2 sent, 1 failed; 0 fetched, 0 displayed, 0 opened, 0 dismissed; reached 0 of 1",
                    "  phone (apns): hub.notConfigured: no hub is configured for platform apns",
                ])
        }
    }

    @Test func anAudienceThatMatchesNoDeviceExitsThreeWithASentence() async throws {
        try await LiveGateway.run { _, admin in
            let mark = try await admin.createUser("mark", role: .marketer)
            let capture = CapturedTerminal()
            let exit = await runner(mark, capture).send(SendPlan(payload: .text("t"), message: "Hi", audience: "username:nobody", wait: true))
            #expect(exit == .refused)
            #expect(capture.lines.last == "notification 1 delivered: 0 of 0 sent, 0 failed; 0 fetched, 0 displayed, 0 opened, 0 dismissed")
            #expect(capture.standardError == "richpush: notification 1 reached no device: no installation matches username:nobody\n")
            let withoutWait = await runner(mark, CapturedTerminal()).send(SendPlan(payload: .text("t"), message: "Hi", audience: "username:nobody"))
            #expect(withoutWait == .success)
        }
    }

    @Test func aDeliveryThatReachesNoHubExitsOne() async throws {
        try await LiveGateway.run { _, admin in
            let alice = try await admin.createUser("alice", role: .member)
            try await alice.register("phone", platform: .fcm)
            let exit = await runner(admin, CapturedTerminal()).send(
                SendPlan(payload: .text("t"), message: "Hi", audience: "username:alice", wait: true))
            #expect(exit == .notDelivered)
        }
    }

    @Test func aCorruptImageIsRefusedWithTheGatewaysSentenceAndExitsThree() async throws {
        try await LiveGateway.run { _, admin in
            let capture = CapturedTerminal()
            let plan = SendPlan(payload: .image(path: "bad.png", bytes: try fixture("bad-crc-idat.png")), message: "Hi", audience: "topic:a")
            let exit = await runner(admin, capture).send(plan)
            #expect(exit == .refused)
            #expect(capture.standardError.hasPrefix("richpush: The PNG image does not decode"))
            #expect(capture.standardOutput.isEmpty)
        }
    }

    @Test func withJsonTheOutputIsOneDocumentScriptsCanRead() async throws {
        try await LiveGateway.run { _, admin in
            let alice = try await admin.createUser("alice", role: .member)
            try await alice.register("laptop")
            let capture = CapturedTerminal()
            let exit = await runner(admin, capture).send(
                SendPlan(payload: .text("t"), message: "Hi", audience: "username:alice", wait: true, json: true))
            #expect(exit == .success)
            #expect(capture.lines.count == 1)
            let status = try JSONDecoder().decode(StatusJSON.self, from: Data(capture.standardOutput.utf8))
            #expect(status.state == .delivered)
            #expect(status.sent == 1)
        }
    }

    @Test func withJsonARefusalIsAnErrorObjectOnStandardOutput() async throws {
        try await LiveGateway.run { _, admin in
            let capture = CapturedTerminal()
            let exit = await runner(admin, capture).send(SendPlan(payload: .text("t"), message: "Hi", audience: "topic:a &&", json: true))
            #expect(exit == .refused)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(capture.standardOutput.utf8)) as? [String: [String: Any]])
            #expect(body["error"]?["code"] as? String == "audience.invalid")
            #expect(body["error"]?["status"] as? Int == 400)
        }
    }

    @Test func statusOfAScheduledNotificationExitsFiveUntilItIsDue() async throws {
        try await LiveGateway.run { _, admin in
            let capture = CapturedTerminal()
            let plan = SendPlan(payload: .text("t"), message: "Later", audience: "topic:a", deliverAt: Date.now.addingTimeInterval(3600))
            #expect(await runner(admin, capture).send(plan) == .success)
            #expect(capture.lines.first?.hasPrefix("notification 1 scheduled for ") == true)
            let statusCapture = CapturedTerminal()
            #expect(await runner(admin, statusCapture).status(id: 1, wait: false, json: false) == .pending)
            #expect(statusCapture.lines == ["notification 1 scheduled: 0 of 0 sent, 0 failed; 0 fetched, 0 displayed, 0 opened, 0 dismissed"])
            let waited = CapturedTerminal()
            #expect(await runner(admin, waited).status(id: 1, wait: true, json: false, timeout: .milliseconds(300)) == .pending)
            #expect(waited.standardError == "richpush: notification 1 is still scheduled after 0.3 seconds\n")
        }
    }

    @Test func statusOfAnUnknownNotificationIsRefused() async throws {
        try await LiveGateway.run { _, admin in
            let capture = CapturedTerminal()
            #expect(await runner(admin, capture).status(id: 99, wait: false, json: false) == .refused)
            #expect(capture.standardError == "richpush: There is no notification 99.\n")
        }
    }
}
