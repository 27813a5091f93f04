import AsyncHTTPClient
import Foundation
import HubTestServers
import RichPushCore
import Testing

@testable import RichPushHubs

@Suite("Azure Notification Hubs")
struct NotificationHubsTests {
    func withHub(
        connectionString: String = NotificationHubsTestServer.connectionString, concurrency: Int = 16,
        _ body: (NotificationHubsHub, NotificationHubsTestServer) async throws -> Void
    )
        async throws
    {
        let server = try await NotificationHubsTestServer.start()
        do {
            try await withHubClient { client in
                var settings = HubSettings()
                settings.notificationHubsConnectionString = connectionString
                settings.notificationHubsHub = NotificationHubsTestServer.hub
                settings.notificationHubsEndpoint = server.endpoint
                settings.maximumConcurrentRequests = concurrency
                try await body(try #require(try NotificationHubsHub.configured(by: settings, client: client)), server)
            }
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    func register(_ id: String, platform: Platform = .apns, tags: [String], in hub: NotificationHubsHub) async throws {
        let channel = platform == .apns ? id.utf8.map { String(format: "%02x", $0) }.joined() : "\(id)-token"
        try await hub.mirror.put(MirroredInstallation(id: id, platform: platform, pushChannel: channel, tags: tags))
    }

    @Test func anInstallationIsMirroredWithEveryTagAndTheHubsPlatformName() async throws {
        try await withHub { hub, server in
            try await register("phone", platform: .fcm, tags: ["installation:phone", "platform:fcm", "topic:sale", "username:alice"], in: hub)
            #expect(server.violations.isEmpty)
            let mirrored = try #require(server.installations["phone"])
            #expect(mirrored.platform == "fcmv1")
            #expect(mirrored.pushChannel == "phone-token")
            #expect(mirrored.tags == ["installation:phone", "platform:fcm", "topic:sale", "username:alice"])
        }
    }

    @Test func aDeletedInstallationLeavesTheHub() async throws {
        try await withHub { hub, server in
            try await register("phone", tags: ["username:alice"], in: hub)
            try await hub.mirror.delete(installationId: "phone")
            try await hub.mirror.delete(installationId: "never-registered")
            #expect(server.installations.isEmpty)
            #expect(server.violations.isEmpty)
        }
    }

    @Test func aCampaignWithVariantsPerLanguageGoesToEachDeviceWithItsOwnVariant() async throws {
        try await withHub { hub, server in
            try await register("fr-phone", tags: ["username:alice"], in: hub)
            try await register("en-phone", tags: ["username:alice"], in: hub)
            try await register("fr-pixel", platform: .fcm, tags: ["username:alice"], in: hub)
            let jobs = [
                job(1, installation: "fr-phone", message: "Sale", content: winterSale, language: "fr"),
                job(2, installation: "en-phone", message: "Sale", content: winterSale, language: "en"),
                job(3, installation: "fr-pixel", platform: .fcm, channel: "fr-pixel-token", message: "Sale", content: winterSale, language: "fr"),
            ]
            #expect(await hub.deliver(jobs, logger: quietLogger) == [.sent, .sent, .sent])
            #expect(server.violations.isEmpty)
            #expect(server.sends.allSatisfy { $0.tags == nil })
            let sends = Dictionary(uniqueKeysWithValues: server.sends.map { ($0.deviceHandle ?? "", $0) })
            #expect(sends[jobs[0].pushChannel]?.format == "apple")
            #expect(
                sends[jobs[0].pushChannel]?.body
                    == #"{"aps":{"content-available":1,"sound":""},"badge":"3","campaign":"w1","richId":"42","richMessage":"Soldes","richTitle":"Soldes d’hiver","richType":"img"}"#
            )
            #expect(
                sends[jobs[1].pushChannel]?.body
                    == #"{"aps":{"content-available":1,"sound":""},"badge":"3","campaign":"w1","richId":"42","richMessage":"Sale","richTitle":"Winter sale","richType":"img"}"#
            )
            #expect(sends["fr-pixel-token"]?.format == "fcmv1")
            #expect(
                sends["fr-pixel-token"]?.body
                    == #"{"message":{"android":{"priority":"HIGH"},"data":{"badge":"3","campaign":"w1","richId":"42","richMessage":"Soldes","richTitle":"Soldes d’hiver","richType":"img"}}}"#
            )
        }
    }

    @Test(arguments: [
        ("topic:sale && appVersion >= 2.3", false), ("timezone:America/New_York", false), ("language:fr || topic:sale", true),
    ])
    func anAudienceTheHubCannotEvaluateGoesToEachDevice(text: String, accepted: Bool) throws {
        #expect(NotificationHubsHub.hubAccepts(try TagExpression(parsing: text)) == accepted)
    }

    @Test func aNotificationIsOneHubSendWithTheAudienceAsTags() async throws {
        try await withHub { hub, server in
            try await register("phone", tags: ["username:alice"], in: hub)
            try await register("pad", tags: ["username:alice"], in: hub)
            try await register("bobs", tags: ["username:bob"], in: hub)
            let jobs = [job(1, installation: "phone"), job(2, installation: "pad")]
            #expect(await hub.deliver(jobs, logger: quietLogger) == [.sent, .sent])
            #expect(server.violations.isEmpty)
            let send = try #require(server.sends.first)
            #expect(server.sends.count == 1)
            #expect(send.format == "apple")
            #expect(send.tags == "username:alice")
            #expect(send.pushType == "background")
            #expect(send.reached == ["pad", "phone"])
            #expect(object(send.body)["richId"] as? String == "42")
        }
    }

    @Test func apnsAndFcmDevicesGetOneSendEachInTheirOwnFormat() async throws {
        try await withHub { hub, server in
            try await register("phone", tags: ["topic:sale"], in: hub)
            try await register("android", platform: .fcm, tags: ["topic:sale"], in: hub)
            let jobs = [
                job(1, installation: "phone", audience: "topic:sale"), job(2, installation: "android", platform: .fcm, audience: "topic:sale"),
            ]
            #expect(await hub.deliver(jobs, logger: quietLogger) == [.sent, .sent])
            #expect(Set(server.sends.map(\.format)) == ["apple", "fcmv1"])
            let fcm = try #require(server.sends.first { $0.format == "fcmv1" })
            #expect(fcm.reached == ["android"])
            let message = try #require(object(fcm.body)["message"] as? [String: Any])
            #expect((message["data"] as? [String: String])?["richType"] == "img")
            #expect(message["notification"] == nil)
        }
    }

    @Test func anAudienceBeyondTheHubsTagLimitGoesOutAsDirectSends() async throws {
        try await withHub { hub, server in
            let audience = "a && b && c && d && e && f && g"
            let jobs = [job(1, installation: "phone", audience: audience), job(2, installation: "pad", audience: audience)]
            #expect(await hub.deliver(jobs, logger: quietLogger) == [.sent, .sent])
            #expect(server.sends.map(\.tags) == [nil, nil])
            #expect(Set(server.sends.compactMap(\.deviceHandle)) == Set(jobs.map(\.pushChannel)))
        }
    }

    @Test func aWrongKeyFailsTheBatchAsAConfigurationError() async throws {
        let wrong = NotificationHubsTestServer.connectionString.replacingOccurrences(of: "SharedAccessKey=c2Vj", with: "SharedAccessKey=d3Jv")
        try await withHub(connectionString: wrong, concurrency: 1) { hub, server in
            let outcomes = await hub.deliver([job(1, notification: 1), job(2, notification: 2)], logger: quietLogger)
            #expect(outcomes.allSatisfy { if case .failed(let code, _) = $0 { code == "anh.status401" } else { false } })
            #expect(server.violations == ["InvalidSignature"])
        }
    }

    @Test func throttlingIsRetried() async throws {
        try await withHub { hub, server in
            server.answerSends(with: 429)
            guard case .retry(_, let code, _) = await hub.deliver([job(1)], logger: quietLogger)[0] else { Issue.record("not a retry"); return }
            #expect(code == "anh.status429")
        }
    }

    @Test func theSignatureCoversTheLowerCasedHubURIForAnHour() throws {
        let connection = try ConnectionString("Endpoint=sb://MyNamespace.servicebus.windows.net/;SharedAccessKeyName=Full;SharedAccessKey=secret")
        let signature = SharedAccessSignature(connection: connection, hub: "MyHub")
        #expect(signature.resourceURI == "https://mynamespace.servicebus.windows.net/myhub")
        let header = signature.authorization(now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(header.hasPrefix("SharedAccessSignature sr=https%3A%2F%2Fmynamespace.servicebus.windows.net%2Fmyhub&sig="))
        #expect(header.hasSuffix("&se=1800003600&skn=Full"))
    }

    @Test(arguments: ["Endpoint=sb://ns.servicebus.windows.net/", "SharedAccessKeyName=a;SharedAccessKey=b", "garbage"])
    func anIncompleteConnectionStringIsRefused(text: String) {
        #expect(throws: HubConfigurationError.self) { try ConnectionString(text) }
    }
}
