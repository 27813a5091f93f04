import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import NIOCore
import RichPushCore
import RichPushHubs
import TestSupport
import Testing

@testable import RichPushServer

/// The gateway delivering raw notifications through WNS, replaced by its loopback stand-in over TLS.
@Suite("The WNS hub")
struct WNSHubTests {
    func withWNS(_ body: @Sendable (Session, WNSTestServer) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-wns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let wns = try await WNSTestServer.start(directory: directory)
        let gateway = TestGateway { configuration in
            configuration.hubs.wnsClientId = WNSTestServer.clientId
            configuration.hubs.wnsClientSecret = WNSTestServer.clientSecret
            configuration.hubs.wnsTokenEndpoint = wns.tokenEndpoint
            configuration.hubs.wnsChannelHosts = WNSChannelHosts(patterns: ["127.0.0.1"])
            configuration.hubs.allowPrivatePushEndpoints = true
            configuration.hubs.tlsCAFile = wns.authority.caFile
        }
        do {
            try await gateway.run { session in try await body(session, wns) }
            await wns.stop()
        } catch {
            await wns.stop()
            throw error
        }
    }

    func registerWindows(_ id: String, of user: Credentials, channel: String, language: String? = nil, in session: Session) async throws {
        let language = language.map { #","language":"\#($0)""# } ?? ""
        let response = try await session.request(
            .put, "/api/installations/\(id)", as: user, json: #"{"platform":"wns","pushChannel":"\#(channel)"\#(language)}"#)
        guard response.status == .created else { throw TestFailure("registering \(id): \(response.status) \(String(buffer: response.body))") }
    }

    @Test func everyWindowsDeviceGetsARawNotificationWithOneReusedToken() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            try await registerWindows("desktop", of: alice, channel: wns.channel("desktop"), in: session)
            let id = try await session.send(
                #"{"message":"Winter sale","richType":"text","text":"30% off","audience":"username:alice","expiresAt":"2099-01-01T00:00:00Z"}"#,
                as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 2)
            #expect(Set(wns.accepted.map(\.channel)) == ["laptop", "desktop"])
            let body = try #require(wns.accepted.first?.body)
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
            #expect(keys == ["richId": String(id), "richType": "text", "richMessage": "Winter sale"])
            // Seconds until expiresAt, 2099-01-01T00:00:00Z.
            let untilExpiry = Int(Date(timeIntervalSince1970: 4_070_908_800).timeIntervalSinceNow)
            #expect(abs((wns.accepted.first?.timeToLive ?? 0) - untilExpiry) < 60)
            #expect(wns.tokenExchanges == 1)
            #expect(wns.violations.isEmpty)
        }
    }

    @Test func eachWindowsDeviceOfOneBatchGetsTheNotificationInItsOwnLanguage() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), language: "fr", in: session)
            try await registerWindows("desktop", of: alice, channel: wns.channel("desktop"), in: session)
            try await registerWindows("tablet", of: alice, channel: wns.channel("tablet"), language: "fr-CA", in: session)
            let id = try await session.send(
                #"{"message":"Winter sale","richType":"text","text":"30% off","audience":"username:alice","localizations":{"fr":{"message":"Soldes"}}}"#,
                as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 3)
            let messages = Dictionary(
                uniqueKeysWithValues: try wns.accepted.map { notification in
                    let keys = try JSONSerialization.jsonObject(with: Data(notification.body.utf8)) as? [String: String]
                    return (notification.channel, keys?["richMessage"] ?? "")
                })
            #expect(messages == ["laptop": "Soldes", "desktop": "Winter sale", "tablet": "Soldes"])
        }
    }

    @Test func aWindowsDeviceGetsTheButtonsAndLevelAmongTheRawNotificationsKeys() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            let id = try await session.send(
                #"{"message":"Sale","richType":"text","audience":"username:alice","interruptionLevel":"active","channel":"offers","actions":[{"id":"later","label":"Later","kind":"dismiss"}]}"#,
                as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let body = try #require(wns.accepted.first?.body)
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
            #expect(
                keys == [
                    "richId": String(id), "richType": "text", "richMessage": "Sale", "richInterruptionLevel": "active", "richChannel": "offers",
                    "richActions": #"[{"id":"later","kind":"dismiss","label":"Later"}]"#,
                ])
        }
    }

    @Test func aPushWithoutExpiryIsKeptForTheDefaultLifetime() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            #expect((2_419_100...2_419_200).contains(wns.accepted.first?.timeToLive ?? 0))
        }
    }

    @Test func anExpiredTokenIsRenewedOnceAndThePushGoesThrough() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            let first = try await session.send(#"{"message":"one","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: first)
            wns.revokeAccessTokens()
            let second = try await session.send(#"{"message":"two","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            #expect(try await session.waitForState("delivered", of: second)["sent"] as? Int64 == 1)
            #expect(wns.tokenExchanges == 2)
        }
    }

    @Test(arguments: [(404, "wns.channelNotFound"), (410, "wns.channelExpired")])
    func aChannelWNSDisownsIsGone(status: Int, code: String) async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            wns.answer("laptop", with: .init(status: status))
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let status = try await session.waitForState("failed", of: id)
            #expect((status["errors"] as? [[String: Any]])?.first?["code"] as? String == code)
            let installation = try await session.request(.get, "/api/installations/laptop", as: alice).json()
            #expect(installation["deadAt"] as? String != nil)
        }
    }

    @Test(arguments: [406, 503])
    func aThrottledOrUnavailableChannelIsTriedAgain(status: Int) async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            wns.answer("laptop", with: .init(status: status, retryAfter: "0"))
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let reason = status == 406 ? "wns.throttled" : "wns.unavailable"
            #expect(try await session.waitUntilPending(of: id, to: "laptop", because: reason)["attempts"] as? Int64 == 1)
            session.clock.advance(by: 600)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 1)
            #expect(wns.accepted.count == 1)
        }
    }

    @Test func aNotificationWNSFindsTooLargeFails() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            wns.answer("laptop", with: .init(status: 413))
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let status = try await session.waitForState("failed", of: id)
            #expect((status["errors"] as? [[String: Any]])?.first?["code"] as? String == "wns.payloadTooLarge")
        }
    }

    @Test func refusedCredentialsFailTheDeliveryWithTheEndpointsReason() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            try await registerWindows("laptop", of: alice, channel: wns.channel("laptop"), in: session)
            wns.refuseCredentials()
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let status = try await session.waitForState("failed", of: id)
            let error = try #require((status["errors"] as? [[String: Any]])?.first)
            #expect(error["code"] as? String == "wns.credentialRefused")
            #expect((error["message"] as? String)?.contains("Invalid client secret") == true)
        }
    }

    @Test func aTokenWNSRefusesForTheAppFailsEveryDeviceAsAConfigurationError() async throws {
        try await withWNS { session, wns in
            let alice = try await session.createUser("alice")
            for device in ["laptop", "desktop"] {
                try await registerWindows(device, of: alice, channel: wns.channel(device), in: session)
                wns.answer(device, with: .init(status: 403))
            }
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let status = try await session.waitForState("failed", of: id)
            #expect((status["errors"] as? [[String: Any]])?.map { $0["code"] as? String } == ["wns.forbidden", "wns.forbidden"])
        }
    }

    @Test(arguments: ["https://evil.example.com/c/laptop", "http://127.0.0.1/c/laptop", "laptop-channel"])
    func aChannelOutsideTheWNSHostsIs422(channel: String) async throws {
        try await withWNS { session, _ in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .put, "/api/installations/laptop", as: alice, json: #"{"platform":"wns","pushChannel":"\#(channel)"}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "installation.invalidPushChannel")
        }
    }
}

@Suite("WNS channel hosts")
struct WNSChannelHostsTests {
    @Test func theDefaultAcceptsChannelsUnderNotifyWindowsComOnly() {
        let hosts = WNSChannelHosts.standard
        #expect(hosts.accepts("https://db5p.notify.windows.com/w/?token=AwYAAAB"))
        #expect(!hosts.accepts("https://notify.windows.com.evil.example/w/"))
        #expect(!hosts.accepts("https://evilnotify.windows.com/w/"))
        #expect(!hosts.accepts("http://db5p.notify.windows.com/w/"))
        #expect(!hosts.accepts("https://user:pw@db5p.notify.windows.com/w/"))
    }

    @Test(arguments: ["", "*.", "a b", "*.notify.windows.com,https://x"])
    func aListThatIsNotOfHostNamesIsRefused(text: String) {
        #expect(throws: HubConfigurationError.self) { try WNSChannelHosts(parsing: text) }
    }
}
