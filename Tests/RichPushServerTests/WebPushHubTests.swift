import Crypto
import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import NIOCore
import RichPushCore
import TestSupport
import Testing

@testable import RichPushHubs
@testable import RichPushServer

/// The gateway delivering to browsers through a loopback Web Push service that decrypts every push on its own.
@Suite("The Web Push hub")
struct WebPushHubTests {
    func withWebPush(allowPrivate: Bool = true, _ body: @Sendable (Session, WebPushTestService, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-webpush-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = try await WebPushTestService.start(directory: directory)
        defer { service.stop() }
        let key = P256.Signing.PrivateKey()
        let keyFile = directory.appendingPathComponent("vapid.pem").path
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let gateway = TestGateway { configuration in
            configuration.hubs.vapidKeyFile = keyFile
            configuration.hubs.vapidSubject = "mailto:push@example.com"
            configuration.hubs.allowPrivatePushEndpoints = allowPrivate
            configuration.hubs.tlsCAFile = service.authority.caFile
        }
        try await gateway.run { session in
            try await body(session, service, key.publicKey.x963Representation.base64URLEncodedString())
        }
    }

    func registerBrowser(_ id: String, of user: Credentials, subscription: String, in session: Session) async throws {
        let response = try await session.request(
            .put, "/api/installations/\(id)", as: user, json: #"{"platform":"webpush","pushChannel":\#(subscription)}"#)
        guard response.status == .created else { throw TestFailure("registering \(id): \(response.status) \(String(buffer: response.body))") }
    }

    @Test func aBrowserGetsTheRichEventEncryptedForItsSubscription() async throws {
        try await withWebPush { session, service, _ in
            let alice = try await session.createUser("alice")
            let (subscription, subscriptionId) = try await service.subscribe()
            try await registerBrowser("firefox", of: alice, subscription: subscription, in: session)
            let id = try await session.send(
                #"{"message":"Winter sale","title":"Today only","richType":"text","text":"30% off","audience":"username:alice"}"#, as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 1)
            let push = try #require(try await service.received().first)
            #expect(push.subscription == subscriptionId)
            #expect(push.plaintext == #"{"richId":"\#(id)","richMessage":"Winter sale","richTitle":"Today only","richType":"text"}"#)
            #expect(push.urgency == "normal")
            #expect(push.topic == "rich-\(id)")
            #expect((2_419_100...2_419_200).contains(push.ttl))
            #expect(try await service.violations().isEmpty)
        }
    }

    @Test func aBrowserGetsTheButtonsAndTheLevelInTheEventAndAPassivePushAtLowUrgency() async throws {
        try await withWebPush { session, service, _ in
            let alice = try await session.createUser("alice")
            try await registerBrowser("firefox", of: alice, subscription: try await service.subscribe().json, in: session)
            let id = try await session.send(
                #"""
                {"message":"Digest","richType":"text","audience":"username:alice","interruptionLevel":"passive",
                 "actions":[{"id":"read","label":"Read","kind":"open","url":"https://news.example/d"},
                            {"id":"mute","label":"Mute","kind":"http","url":"https://api.example/mute?key=secret"}]}
                """#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let push = try #require(try await service.received().first)
            #expect(
                push.plaintext
                    == #"{"actions":[{"id":"read","kind":"open","label":"Read","url":"https://news.example/d"},{"id":"mute","kind":"http","label":"Mute"}],"interruptionLevel":"passive","richId":"\#(id)","richMessage":"Digest","richType":"text"}"#
            )
            #expect(push.urgency == "low")
        }
    }

    @Test func anAlertIsSentWithHighUrgency() async throws {
        try await withWebPush { session, service, _ in
            let alice = try await session.createUser("alice")
            try await registerBrowser("firefox", of: alice, subscription: try await service.subscribe().json, in: session)
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"t","audience":"username:alice","pushStyle":"alert"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            #expect(try await service.received().map(\.urgency) == ["high"])
        }
    }

    @Test func aSubscriptionSentAsAStringHoldingItsJSONIsTheSameChannel() async throws {
        try await withWebPush { session, service, _ in
            let alice = try await session.createUser("alice")
            let subscription = try await service.subscribe().json
            try await registerBrowser("firefox", of: alice, subscription: subscription, in: session)
            let asObject = try await session.request(.get, "/api/installations/firefox", as: alice).json()["pushChannel"] as? String
            let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [subscription]), as: UTF8.self).dropFirst().dropLast()
            let again = try await session.request(
                .put, "/api/installations/firefox", as: alice, json: #"{"platform":"webpush","pushChannel":\#(quoted)}"#)
            #expect(again.status == .ok)
            let asString = try await session.request(.get, "/api/installations/firefox", as: alice).json()["pushChannel"] as? String
            #expect(asObject != nil)
            #expect(asObject == asString)
        }
    }

    @Test(arguments: [404, 410])
    func aSubscriptionThePushServiceDisownsIsGone(status: Int) async throws {
        try await withWebPush { session, service, _ in
            let alice = try await session.createUser("alice")
            let (subscription, subscriptionId) = try await service.subscribe()
            try await registerBrowser("firefox", of: alice, subscription: subscription, in: session)
            try await service.answer(subscriptionId, status: status)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let result = try await session.waitForState("failed", of: id)
            #expect((result["errors"] as? [[String: Any]])?.first?["code"] as? String == "webpush.subscriptionGone")
            #expect(try await session.request(.get, "/api/installations/firefox", as: alice).json()["deadAt"] as? String != nil)
        }
    }

    @Test(arguments: [429, 503])
    func aBusyPushServiceIsTriedAgain(status: Int) async throws {
        try await withWebPush { session, service, _ in
            let alice = try await session.createUser("alice")
            let (subscription, subscriptionId) = try await service.subscribe()
            try await registerBrowser("firefox", of: alice, subscription: subscription, in: session)
            try await service.answer(subscriptionId, status: status, retryAfter: "0")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let pending = try await session.waitUntilPending(of: id, to: "firefox", because: "webpush.unavailable")
            #expect(pending["attempts"] as? Int64 == 1, "the delivery: \(pending)")
            session.clock.advance(by: 600)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 1)
            #expect(try await service.received().count == 1)
        }
    }

    @Test func aPushThePushServiceFindsTooLargeFails() async throws {
        try await withWebPush { session, service, _ in
            let alice = try await session.createUser("alice")
            let (subscription, subscriptionId) = try await service.subscribe()
            try await registerBrowser("firefox", of: alice, subscription: subscription, in: session)
            try await service.answer(subscriptionId, status: 413)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let result = try await session.waitForState("failed", of: id)
            #expect((result["errors"] as? [[String: Any]])?.first?["code"] as? String == "webpush.payloadTooLarge")
        }
    }

    @Test(arguments: [
        #"{"endpoint":"http://127.0.0.1/push/1","keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#,
        #"{"endpoint":"https://push.example.net/1","keys":{"p256dh":"BCVxsr7N","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#,
        #"{"endpoint":"https://push.example.net/1","keys":{"p256dh":"BDVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#,
        #"{"endpoint":"https://push.example.net/1","keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZ"}}"#,
        #""not json""#,
    ])
    func aPushChannelThatIsNotASubscriptionIs422(subscription: String) async throws {
        try await withWebPush { session, _, _ in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .put, "/api/installations/firefox", as: alice, json: #"{"platform":"webpush","pushChannel":\#(subscription)}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "installation.invalidPushChannel")
        }
    }

    @Test func anEndpointOnAPrivateAddressIs422UnlessAllowed() async throws {
        try await withWebPush(allowPrivate: false) { session, service, _ in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .put, "/api/installations/firefox", as: alice,
                json: #"{"platform":"webpush","pushChannel":\#(try await service.subscribe().json)}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().message.contains("private"))
        }
    }

    @Test(arguments: [
        "https://2130706433/", "https://0x7f.1/", "https://127.1/", "https://0177.0.0.1/", "https://017700000001/",
        "https://[0:0:0:0:0:0:0:1]/", "https://[0::1]/", "https://localhost./", "https://[::ffff:7f00:1]/", "https://10.1/", "https://0/",
    ])
    func anEndpointSpellingLoopbackOrAPrivateAddressAnyWayIs422(endpoint: String) async throws {
        try await withWebPush(allowPrivate: false) { session, service, _ in
            let alice = try await session.createUser("alice")
            let subscription = try await service.subscribe().json
            let elsewhere = subscription.replacingOccurrences(of: #"https://127\.0\.0\.1:[0-9]+/"#, with: endpoint, options: .regularExpression)
            #expect(elsewhere != subscription)
            let response = try await session.request(
                .put, "/api/installations/firefox", as: alice, json: #"{"platform":"webpush","pushChannel":\#(elsewhere)}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "installation.invalidPushChannel")
            #expect(try await session.request(.get, "/api/installations/firefox", as: alice).status == .notFound)
        }
    }

    @Test func theVAPIDKeyIsServedWithoutCredentials() async throws {
        try await withWebPush { session, _, publicKey in
            let response = try await session.request(.get, "/api/webpush/key")
            #expect(response.status == .ok)
            #expect(try response.json()["publicKey"] as? String == publicKey)
        }
    }

    @Test func withoutWebPushTheKeyIs404() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/webpush/key")
            #expect(response.status == .notFound)
            #expect(try response.error().code == "webpush.notConfigured")
        }
    }
}
