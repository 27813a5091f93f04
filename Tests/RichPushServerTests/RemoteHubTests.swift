import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import RichPushCore
import RichPushHubs
import TestPostgres
import TestSupport
import Testing

@testable import RichPushServer

/// The gateway delivering through APNs, FCM and Notification Hubs, each replaced by its loopback stand-in.
@Suite("Remote hubs")
struct RemoteHubTests {
    /// A gateway configured for a loopback APNs and FCM.
    func withDirectHubs(
        concurrency: Int = 64, publicURL: String? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (Session, APNsTestServer, FCMTestServer) async throws -> Void
    ) async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let apns = try await APNsTestServer.start(directory: keys)
        let fcm = try await FCMTestServer.start(directory: keys, authority: apns.authority)
        let gateway = TestGateway { configuration in
            configuration.hubs.useLoopbackAPNs(apns)
            configuration.hubs.fcmServiceAccountFile = fcm.serviceAccountFile
            configuration.hubs.fcmEndpoint = fcm.endpoint
            configuration.hubs.maximumConcurrentRequests = concurrency
            configuration.hubs.maximumStreams = concurrency
            configuration.publicURL = publicURL
            configure(&configuration)
        }
        do {
            try await gateway.run { session in try await body(session, apns, fcm) }
            await apns.stop()
            await fcm.stop()
        } catch {
            await apns.stop()
            await fcm.stop()
            throw error
        }
    }

    /// On a shared store the outcomes are recorded beside the claims, at least every window while batches are out;
    /// the last answers of a send are recorded as they arrive, so its status does not lag a window behind the hub.
    @Test func onPostgreSQLTheLastAnswersOfASendAreRecordedAsTheyArriveNotAtTheNextWindow() async throws {
        let url = try await TestPostgres.createDatabase()
        defer { TestPostgres.dropDatabase(url) }
        try await withDirectHubs(configure: { configuration in
            configuration.databaseURL = url
            configuration.dispatchRecordWindow = .seconds(3600)
        }) { session, apns, _ in
            let alice = try await session.createUser("alice")
            for phone in ["iphone", "ipad"] { try await session.register(phone, of: alice, platform: .apns) }
            let created = try await session.request(.post, "/api/notifications", as: alice).json()
            let id = try #require(created["id"] as? Int64)
            // A minute is far short of the hour-long window, and long enough for a machine loaded by other tests.
            #expect(try await session.waitForState("delivered", of: id, within: .seconds(60))["sent"] as? Int64 == 2)
            #expect(apns.accepted.count == 2)
        }
    }

    @Test func anApnsDeviceReceivesTheTutorialsSilentPush() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            let created = try await session.request(.post, "/api/notifications", as: alice).json()
            let id = try #require(created["id"] as? Int64)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 1)
            let push = try #require(apns.accepted.first)
            #expect(push.deviceToken == apnsToken(of: "iphone"))
            #expect(push.pushType == "background")
            #expect(push.apnsId == APNsHub.apnsId(notificationId: id, installationId: "iphone"))
            #expect(apns.violations.isEmpty)
        }
    }

    @Test func aPushWithoutExpiryIsKeptByEachHubForTheDefaultLifetime() async throws {
        try await withDirectHubs { session, apns, fcm in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            try await session.register("pixel", of: alice, platform: .fcm)
            let before = Date.now
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let after = Date.now
            let fourWeeks = 28.0 * 86_400
            let expiration = try #require(apns.accepted.first?.expiration.flatMap { Double($0) })
            #expect(expiration >= (before + fourWeeks).timeIntervalSince1970.rounded(.down))
            #expect(expiration <= (after + fourWeeks).timeIntervalSince1970.rounded(.up))
            let ttl = try #require(fcm.accepted.first?.ttl)
            #expect(["2419199s", "2419200s"].contains(ttl))
        }
    }

    @Test func anFcmDeviceReceivesADataOnlyMessage() async throws {
        try await withDirectHubs { session, _, fcm in
            let alice = try await session.createUser("alice")
            try await session.register("pixel", of: alice, platform: .fcm)
            let id = try await session.send(
                #"{"message":"Sale","richType":"url","url":"https://example.com/s","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let message = try #require(fcm.accepted.first)
            #expect(message.token == "pixel-channel")
            #expect(message.data == ["richId": String(id), "richType": "url", "richMessage": "Sale"])
            #expect(fcm.violations.isEmpty)
        }
    }

    @Test func aFrenchAndAnEnglishDeviceOfOneCampaignGetTheirOwnVariantOnAPNsAndFCM() async throws {
        try await withDirectHubs { session, apns, fcm in
            let alice = try await session.createUser("alice")
            for (id, platform, channel, language) in [
                ("iphone-fr", "apns", "aaaa01", "fr"), ("iphone-en", "apns", "aaaa02", "en-GB"), ("pixel-fr", "fcm", "fcm-fr", "fr-CA"),
                ("pixel-en", "fcm", "fcm-en", "en-US"), ("pixel", "fcm", "fcm-default", nil),
            ] as [(String, String, String, String?)] {
                let language = language.map { #","language":"\#($0)""# } ?? ""
                try await session.request(
                    .put, "/api/installations/\(id)", as: alice,
                    json: #"{"platform":"\#(platform)","pushChannel":"\#(channel)"\#(language)}"#)
            }
            let id = try await session.send(
                #"{"message":"Sale","richType":"text","audience":"username:alice","title":"Winter sale","badge":2,"data":{"campaign":"w1"},"localizations":{"fr":{"message":"Soldes","title":"Soldes d’hiver"}}}"#,
                as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 5)
            let apnsPayloads = Dictionary(uniqueKeysWithValues: apns.accepted.map { ($0.deviceToken, $0.payload) })
            #expect(
                apnsPayloads["aaaa01"]
                    == #"{"aps":{"content-available":1,"sound":""},"badge":"2","campaign":"w1","richId":"\#(id)","richMessage":"Soldes","richTitle":"Soldes d’hiver","richType":"text"}"#
            )
            #expect(apnsPayloads["aaaa02"]?.contains(#""richMessage":"Sale","richTitle":"Winter sale""#) == true)
            let fcmData = Dictionary(uniqueKeysWithValues: fcm.accepted.map { ($0.token, $0.data) })
            #expect(
                fcmData["fcm-fr"]
                    == [
                        "richId": String(id), "richType": "text", "richMessage": "Soldes", "richTitle": "Soldes d’hiver", "badge": "2",
                        "campaign": "w1",
                    ])
            #expect(fcmData["fcm-en"]?["richMessage"] == "Sale")
            #expect(fcmData["fcm-en"]?["richTitle"] == "Winter sale")
            #expect(fcmData["fcm-default"]?["richMessage"] == "Sale")
            #expect(apns.violations.isEmpty)
            #expect(fcm.violations.isEmpty)
        }
    }

    @Test func anUnreadBadgeCountsWhatTheUserLeftUnreadAfterAPatchThroughTheAPI() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            func campaign(_ message: String) async throws -> Int64 {
                let id = try await session.send(
                    #"{"message":"\#(message)","richType":"text","audience":"username:alice","badge":"unread"}"#, as: .admin)
                _ = try await session.waitForState("delivered", of: id)
                return id
            }
            func badge(of id: Int64) throws -> String? {
                let bodies = apns.accepted.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as? [String: Any] }
                let push = try #require(bodies.first { $0["richId"] as? String == String(id) })
                return push["badge"] as? String
            }
            let first = try await campaign("First")
            let second = try await campaign("Second")
            #expect(try badge(of: first) == "1")
            #expect(try badge(of: second) == "2")
            let read = try await session.request(.patch, "/api/me/notifications/\(first)", as: alice, json: #"{"readState":"read"}"#)
            #expect(read.status == .ok)
            let third = try await campaign("Third")
            #expect(try badge(of: third) == "2")
            #expect(apns.violations.isEmpty)
        }
    }

    @Test func anFcmAlertOfAnImageLinksTheImageSignedForItsOwnDeviceUnderThePublicURL() async throws {
        try await withDirectHubs(publicURL: "https://push.example.com") { session, _, fcm in
            let alice = try await session.createUser("alice")
            try await session.register("pixel", of: alice, platform: .fcm)
            try await session.register("tablet", of: alice, platform: .fcm)
            let image = try await session.upload(as: .admin)
            let id = try await session.send(
                #"{"message":"Look","richType":"img","imageId":\#(image),"audience":"username:alice","pushStyle":"alert","title":"New"}"#,
                as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let links = try fcm.accepted.reduce(into: [String: String]()) { $0[$1.token] = try #require($1.notification?["image"]) }
            let link = try #require(links["pixel-channel"])
            #expect(link.hasPrefix("https://push.example.com/api/notifications/\(id)?exp="))
            #expect(link.contains("&installationId=pixel&sig="))
            #expect(links["tablet-channel"]?.contains("&installationId=tablet&sig=") == true)
            #expect(fcm.accepted.first?.notification?["title"] == "New")
            #expect(fcm.accepted.first?.androidNotification?["click_action"] == "richPush")
            // The link opens the image without credentials, and the fetch is the pixel's.
            let path = String(link.dropFirst("https://push.example.com".count))
            let fetched = try await session.request(.get, path)
            #expect(fetched.status == .ok)
            #expect(fetched.headers[.contentType] == "image/png")
            let deliveries = try await session.request(.get, "/api/notifications/\(id)/deliveries", as: .admin).json()
            let fetchedBy = (deliveries["items"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) {
                $0[$1["installationId"] as? String ?? ""] = $1["fetchedBy"] as? String
            }
            #expect(fetchedBy == ["pixel": "installation", "tablet": "user"])
            // Another device's name under the pixel's signature is refused.
            let forged = path.replacingOccurrences(of: "installationId=pixel", with: "installationId=tablet")
            #expect(try await session.request(.get, forged).status == .forbidden)
        }
    }

    @Test func aDeviceApnsCallsGoneIsMarkedAndLeftOutOfLaterAudiences() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            try await session.register("old-iphone", of: alice, platform: .apns)
            try await session.register("new-iphone", of: alice, platform: .apns)
            apns.answer(apnsToken(of: "old-iphone"), with: .init(status: 410, reason: "Unregistered"))
            let first = try await session.send(#"{"message":"one","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let status = try await session.waitForState("partial", of: first)
            let error = try #require((status["errors"] as? [[String: Any]])?.first)
            #expect(error["installationId"] as? String == "old-iphone")
            #expect(error["code"] as? String == "apns.unregistered")
            let installation = try await session.request(.get, "/api/installations/old-iphone", as: alice).json()
            #expect(installation["deadReason"] as? String == "apns.unregistered")
            let second = try await session.send(#"{"message":"two","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(try await session.waitForState("delivered", of: second)["targeted"] as? Int64 == 1)
            #expect(apns.accepted.map(\.deviceToken) == [apnsToken(of: "new-iphone"), apnsToken(of: "new-iphone")])
        }
    }

    @Test func registeringAgainRevivesADeviceApnsCalledGone() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            apns.answer(apnsToken(of: "iphone"), with: .init(status: 410, reason: "Unregistered"))
            let first = try await session.send(#"{"message":"one","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("failed", of: first)
            try await session.register("iphone", of: alice, platform: .apns)
            let second = try await session.send(#"{"message":"two","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(try await session.waitForState("delivered", of: second)["sent"] as? Int64 == 1)
            #expect(apns.accepted.count == 1)
        }
    }

    @Test func aThrottledPushIsSentAgainAfterTheHubsRetryAfter() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            apns.answer(apnsToken(of: "iphone"), with: .init(status: 429, reason: "TooManyRequests", retryAfter: "120"))
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(try await session.waitUntilPending(of: id, to: "iphone", because: "apns.tooManyRequests")["attempts"] as? Int64 == 1)
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["state"] as? String == "sending")
            session.clock.advance(by: 121)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 1)
            #expect(apns.accepted.count == 1)
        }
    }

    @Test func whatApnsAnsweredIsRecordedWhileTheRestOfItsBatchAwaitsItsAnswer() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            for device in ["a", "b", "c"] { try await session.register("iphone-\(device)", of: alice, platform: .apns) }
            // Yesterday's campaign: APNs has accepted this key before, so no push goes ahead of its batch alone.
            let yesterday = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: yesterday)
            apns.holdAnswers(to: apnsToken(of: "iphone-c"))
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            func status() async throws -> [String: Any] {
                try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            }
            #expect(try await eventually(within: .seconds(60)) { try await status()["sent"] as? Int64 == 2 })
            #expect(try await status()["state"] as? String == "sending")
            apns.releaseHeldAnswers()
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 3)
        }
    }

    @Test func aConfigurationTheHubRejectsFailsEveryDeviceWithItsReasonAfterOneRequest() async throws {
        try await withDirectHubs(concurrency: 1) { session, apns, _ in
            let alice = try await session.createUser("alice")
            for device in ["a", "b", "c"] { try await session.register("iphone-\(device)", of: alice, platform: .apns) }
            for device in ["a", "b", "c"] {
                apns.answer(apnsToken(of: "iphone-\(device)"), with: .init(status: 403, reason: "InvalidProviderToken"))
            }
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let status = try await session.waitForState("failed", of: id)
            let codes = (status["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
            #expect(codes == ["apns.invalidProviderToken", "apns.invalidProviderToken", "apns.invalidProviderToken"])
            #expect(apns.accepted.isEmpty)
        }
    }

    /// A gateway whose APNs and FCM devices are carried by a loopback Notification Hubs.
    func withNotificationHubs(_ body: @Sendable (Session, NotificationHubsTestServer) async throws -> Void) async throws {
        let hub = try await NotificationHubsTestServer.start()
        let gateway = TestGateway { configuration in
            configuration.hubs.notificationHubsConnectionString = NotificationHubsTestServer.connectionString
            configuration.hubs.notificationHubsHub = NotificationHubsTestServer.hub
            configuration.hubs.notificationHubsEndpoint = hub.endpoint
        }
        do {
            try await gateway.run { session in try await body(session, hub) }
            await hub.stop()
        } catch {
            await hub.stop()
            throw error
        }
    }

    @Test func notificationHubsCarriesApnsAndFcmAsOneSendPerPlatformToMirroredInstallations() async throws {
        try await withNotificationHubs { session, hub in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns, tags: ["topic:sale"])
            try await session.register("pixel", of: alice, platform: .fcm)
            try await session.register("laptop", of: alice)
            try #require(await eventually(within: .seconds(10)) { hub.installations.count == 2 })
            #expect(hub.installations["iphone"]?.tags == ["installation:iphone", "platform:apns", "topic:sale", "username:alice"])
            #expect(hub.installations["pixel"]?.platform == "fcmv1")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 3)
            let sends = hub.sends.sorted { $0.format < $1.format }
            #expect(sends.map(\.format) == ["apple", "fcmv1"])
            #expect(sends.map(\.tags) == ["username:alice", "username:alice"])
            #expect(sends.map(\.reached) == [["iphone"], ["pixel"]])
            #expect(try await session.request(.delete, "/api/installations/pixel", as: alice).status == .noContent)
            try #require(await eventually(within: .seconds(10)) { hub.installations["pixel"] == nil })
            let withButtons = try await session.send(
                #"{"message":"b","richType":"text","audience":"username:alice","pushStyle":"alert","interruptionLevel":"passive","actions":[{"id":"later","label":"Later","kind":"dismiss"}]}"#,
                as: .admin)
            _ = try await session.waitForState("delivered", of: withButtons)
            let apple = try #require(hub.sends.last { $0.format == "apple" })
            #expect(
                apple.body
                    == #"{"aps":{"alert":{"body":"b"},"category":"richPush","interruption-level":"passive","mutable-content":1},"richActions":[{"id":"later","kind":"dismiss","label":"Later"}],"richId":"\#(withButtons)","richMessage":"b","richType":"text"}"#
            )
            #expect(hub.violations.isEmpty)
        }
    }
}
