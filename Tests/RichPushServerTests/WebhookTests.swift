import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import RichPushHubs
import RichPushServer
import TestSupport
import Testing

/// A gateway whose webhooks may post to loopback, where the tests' receivers listen.
private func webhookGateway() -> TestGateway {
    TestGateway { $0.hubs.allowPrivatePushEndpoints = true }
}

extension Session {
    /// Creates a webhook as the admin and returns its id and secret.
    fileprivate func createWebhook(_ url: String, events: [WebhookEventType] = WebhookEventType.allCases) async throws -> (
        id: String, secret: String
    ) {
        let names = events.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        let answer = try await request(.post, "/api/webhooks", as: .admin, json: #"{"url":"\#(url)","events":[\#(names)]}"#)
        let json = try answer.json()
        guard answer.status == .created, let id = json["id"] as? String, let secret = json["secret"] as? String else {
            throw TestFailure("creating a webhook: \(answer.status) \(String(buffer: answer.body))")
        }
        return (id, secret)
    }

    fileprivate func attempts(of webhook: String) async throws -> [[String: Any]] {
        try await request(.get, "/api/webhooks/\(webhook)/attempts", as: .admin).json()["items"] as? [[String: Any]] ?? []
    }
}

@Suite("Webhooks")
struct WebhookTests {
    @Test func anAdminCreatesAWebhookAndSeesItsSecretOnlyOnce() async throws {
        try await webhookGateway().run { session in
            let answer = try await session.request(
                .post, "/api/webhooks", as: .admin, json: #"{"url":"https://hooks.example.com/richpush","events":["delivery.failed"]}"#)
            #expect(answer.status == .created)
            let created = try answer.json()
            let id = try #require(created["id"] as? String)
            #expect(answer.headers[.location] == "/api/webhooks/\(id)")
            #expect((created["secret"] as? String)?.hasPrefix("whsec_") == true)
            #expect(created["enabled"] as? Bool == true)
            let listed = try #require(try await session.request(.get, "/api/webhooks", as: .admin).json()["items"] as? [[String: Any]])
            #expect(listed.map { $0["id"] as? String } == [id])
            #expect(listed[0]["secret"] == nil)
            #expect(listed[0]["events"] as? [String] == ["delivery.failed"])
            #expect(try await session.request(.get, "/api/webhooks/\(id)", as: .admin).json()["secret"] == nil)
        }
    }

    @Test func aMarketerMayNotManageWebhooks() async throws {
        try await webhookGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let answer = try await session.request(
                .post, "/api/webhooks", as: mark, json: #"{"url":"https://hooks.example.com/x","events":["delivery.sent"]}"#)
            #expect(answer.status == .forbidden)
            #expect(try await session.request(.get, "/api/webhooks", as: mark).status == .forbidden)
        }
    }

    @Test(arguments: [
        (#"{"url":"https://hooks.example.com/x","events":["delivery.opened"]}"#, "webhook.invalidEvents"),
        (#"{"url":"https://hooks.example.com/x","events":[]}"#, "webhook.invalidEvents"),
        (#"{"url":"ftp://hooks.example.com/x","events":["delivery.sent"]}"#, "webhook.invalidUrl"),
        (#"{"url":"https://user:pw@hooks.example.com/x","events":["delivery.sent"]}"#, "webhook.invalidUrl"),
        (#"{"url":"hooks.example.com/x","events":["delivery.sent"]}"#, "webhook.invalidUrl"),
        (#"{"url":"https://hooks.example.com/x","events":["delivery.sent"],"secret":"whsec_c2hvcnQ="}"#, "webhook.invalidSecret"),
        (#"{"url":"https://hooks.example.com/x","events":["delivery.sent"],"secret":"plain"}"#, "webhook.invalidSecret"),
    ])
    func aWebhookThatCannotWorkIs422AndNothingIsStored(json: String, code: String) async throws {
        try await webhookGateway().run { session in
            let answer = try await session.request(.post, "/api/webhooks", as: .admin, json: json)
            #expect(answer.status == .unprocessableContent)
            #expect(try answer.error().code == code)
            #expect((try await session.request(.get, "/api/webhooks", as: .admin).json()["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(arguments: ["http://127.0.0.1:9/hook", "http://[::1]/hook", "http://10.0.0.8/hook", "http://localhost/hook", "http://0x7f.1/hook"])
    func aReceiverOnTheGatewaysOwnNetworkIsRefused(url: String) async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(.post, "/api/webhooks", as: .admin, json: #"{"url":"\#(url)","events":["delivery.sent"]}"#)
            #expect(answer.status == .unprocessableContent)
            #expect(try answer.error().code == "webhook.forbiddenAddress")
        }
    }

    @Test func aDeletedWebhookIsGone() async throws {
        try await webhookGateway().run { session in
            let webhook = try await session.createWebhook("https://hooks.example.com/x")
            #expect(try await session.request(.delete, "/api/webhooks/\(webhook.id)", as: .admin).status == .noContent)
            #expect(try await session.request(.get, "/api/webhooks/\(webhook.id)", as: .admin).status == .notFound)
            #expect(try await session.request(.delete, "/api/webhooks/\(webhook.id)", as: .admin).status == .notFound)
        }
    }

    @Test func aDeliveryAndWhatItsRecipientDidReachTheReceiverSignedAsStandardWebhooks() async throws {
        let receiver = try await WebhookReceiver.start()
        try await webhookGateway().run { session in
            let webhook = try await session.createWebhook(receiver.url)
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let id = try await session.send(#"{"message":"Sale","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok)
            _ = try await session.request(
                .post, "/api/me/notifications/\(id)/receipts", as: alice, json: #"{"installationId":"laptop","event":"displayed"}"#)
            _ = try await session.request(
                .patch, "/api/me/notifications/\(id)", as: alice, json: #"{"userActionState":"activated","installationId":"laptop"}"#)
            let expected: Set<String> = [
                "delivery.sent", "notification.completed", "payload.fetched", "notification.displayed", "notification.opened",
            ]
            #expect(await eventually { Set(receiver.events.compactMap { $0["type"] as? String }) == expected })
            let sent = try #require(receiver.events.first { $0["type"] as? String == "delivery.sent" })
            let data = try #require(sent["data"] as? [String: Any])
            #expect(data["notificationId"] as? Int64 == id)
            #expect(data["installationId"] as? String == "laptop")
            #expect(data["username"] as? String == "alice")
            #expect(data["platform"] as? String == "direct")
            let completed = try #require(receiver.events.first { $0["type"] as? String == "notification.completed" }?["data"] as? [String: Any])
            #expect(completed["state"] as? String == "delivered")
            #expect(completed["sent"] as? Int64 == 1)

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let requests = receiver.deliveries.map { ["headers": $0.headers, "body": $0.body] as [String: Any] }
            try JSONSerialization.data(withJSONObject: requests).write(to: file)
            let verified = try await SpawnedProcess.run(
                "/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("Tests/clients/verify_webhooks.py").path, file.path],
                environment: ProcessInfo.processInfo.environment.merging(["WEBHOOK_SECRET": webhook.secret]) { $1 })
            #expect(verified.status == 0, "\(verified.output)")
            #expect(verified.output.components(separatedBy: "\n").filter { $0.hasPrefix("verified ") }.count == receiver.deliveries.count)
        }
        await receiver.stop()
    }

    @Test func eventsThatWaitedForTheReceiverGoTogetherInOneBatch() async throws {
        let receiver = try await WebhookReceiver.start(answering: [503, 204])
        try await webhookGateway().run { session in
            let webhook = try await session.createWebhook(receiver.url, events: [.deliverySent])
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let first = try await session.send(#"{"message":"a","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(await eventually { receiver.deliveries.count == 1 })
            let second = try await session.send(#"{"message":"b","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: second)
            session.clock.advance(by: 5)
            // The failed message goes again as it was, under its id; the event that came meanwhile follows it.
            #expect(await eventually { receiver.deliveries.count == 3 })
            let deliveries = receiver.deliveries
            #expect(deliveries[1].headers["webhook-id"] == deliveries[0].headers["webhook-id"])
            #expect(deliveries[1].body == deliveries[0].body)
            #expect(deliveries[0].events.compactMap { ($0["data"] as? [String: Any])?["notificationId"] as? Int64 } == [first])
            #expect(deliveries[2].events.compactMap { ($0["data"] as? [String: Any])?["notificationId"] as? Int64 } == [second])
            // The receiver has the third message as soon as the sender does: its attempt is recorded after.
            var attempts: [[String: Any]] = []
            #expect(
                try await eventually {
                    attempts = try await session.attempts(of: webhook.id)
                    return attempts.count == 3
                })
            #expect(attempts.compactMap { $0["status"] as? Int64 } == [204, 204, 503])
        }
        await receiver.stop()
    }

    @Test func aReceiverThatFailsForADayIsDisabledWithTheReasonShown() async throws {
        let receiver = try await WebhookReceiver.start(answering: [500])
        try await webhookGateway().run { session in
            let webhook = try await session.createWebhook(receiver.url, events: [.deliverySent])
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            _ = try await session.send(#"{"message":"a","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            for (attempt, wait) in [5.0, 300, 1800, 7200, 18_000, 36_000].enumerated() {
                #expect(try await eventually { try await session.attempts(of: webhook.id).count == attempt + 1 }, "attempt \(attempt + 1)")
                #expect(receiver.deliveries.count == attempt + 1)
                let shown = try await session.request(.get, "/api/webhooks/\(webhook.id)", as: .admin).json()
                #expect(shown["enabled"] as? Bool == true)
                #expect(shown["failingSince"] is String)
                session.clock.advance(by: wait)
            }
            #expect(await eventually { receiver.deliveries.count == 7 })
            var shown: [String: Any] = [:]
            #expect(
                try await eventually {
                    shown = try await session.request(.get, "/api/webhooks/\(webhook.id)", as: .admin).json()
                    return shown["enabled"] as? Bool == false
                })
            #expect((shown["disabledReason"] as? String)?.contains("failed for a day") == true)
            #expect((shown["disabledReason"] as? String)?.contains("HTTP 500") == true)
            #expect(try await session.attempts(of: webhook.id).count == 7)
        }
        await receiver.stop()
    }

    @Test func aReceiverThatAnswers410IsDisabledAtOnceAndCanBeEnabledAgain() async throws {
        let receiver = try await WebhookReceiver.start(answering: [410, 204])
        try await webhookGateway().run { session in
            let webhook = try await session.createWebhook(receiver.url, events: [.deliverySent])
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            _ = try await session.send(#"{"message":"a","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            var shown: [String: Any] = [:]
            #expect(
                try await eventually {
                    shown = try await session.request(.get, "/api/webhooks/\(webhook.id)", as: .admin).json()
                    return shown["enabled"] as? Bool == false
                })
            #expect((shown["disabledReason"] as? String)?.contains("410") == true)
            let enabled = try await session.request(.patch, "/api/webhooks/\(webhook.id)", as: .admin, json: #"{"enabled":true}"#)
            #expect(try enabled.json()["enabled"] as? Bool == true)
            let id = try await session.send(#"{"message":"b","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(
                await eventually {
                    receiver.events.contains { ($0["data"] as? [String: Any])?["notificationId"] as? Int64 == id }
                })
        }
        await receiver.stop()
    }
}
