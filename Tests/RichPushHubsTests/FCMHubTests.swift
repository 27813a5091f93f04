import AsyncHTTPClient
import Foundation
import HubTestServers
import NIOCore
import RichPushCore
import Testing

@testable import RichPushHubs

@Suite("FCM HTTP v1 with a service account")
struct FCMHubTests {
    /// Runs `body` with a hub sending to a new test server; with `firstToken`, once the hub has its first access token.
    func withFCM(
        concurrency: Int = 16, maximumConnections: Int = HubSettings().maximumConnections, firstToken: Bool = true,
        _ body: (FCMHub, FCMTestServer) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await FCMTestServer.start(directory: scratch.url)
        do {
            try await withHubClient(caFile: server.authority.caFile) { client in
                var settings = HubSettings()
                settings.fcmServiceAccountFile = server.serviceAccountFile
                settings.fcmEndpoint = server.endpoint
                settings.tlsCAFile = server.authority.caFile
                settings.maximumStreams = concurrency
                settings.maximumConnections = maximumConnections
                let hub = try #require(try await FCMHub.configured(by: settings, client: client))
                // The hub's connections close before the server stops, as the gateway closes them before it exits.
                do {
                    if firstToken { await fetchFirstToken(of: hub) }
                    try await body(hub, server)
                } catch {
                    await hub.shutdown()
                    throw error
                }
                await hub.shutdown()
            }
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func aDataOnlyMessageArrivesWithHighPriorityAndTheTimeToLiveOfTheExpiry() async throws {
        try await withFCM { hub, server in
            let outcomes = await hub.deliver([job(1, platform: .fcm, channel: "fcm-token-1", expiresAt: .now + 3600)], logger: quietLogger)
            #expect(outcomes == [.sent])
            #expect(server.violations.isEmpty)
            let message = try #require(server.accepted.first)
            #expect(message.token == "fcm-token-1")
            #expect(message.data == ["richId": "42", "richType": "img", "richMessage": "Check this image out!"])
            #expect(message.androidPriority == "HIGH")
            let seconds = try #require(message.ttl.flatMap { Int($0.dropLast()) })
            #expect((3590...3600).contains(seconds))
        }
    }

    @Test func aFrenchDevicesSilentMessageIsDataOnlyWithItsVariantTitleBadgeAndData() async throws {
        try await withFCM { hub, server in
            let french = job(1, platform: .fcm, channel: "fcm-token-1", message: "Sale", content: winterSale, language: "fr")
            #expect(await hub.deliver([french], logger: quietLogger) == [.sent])
            #expect(server.violations.isEmpty)
            #expect(
                server.accepted.first?.body
                    == #"{"message":{"android":{"priority":"HIGH"},"data":{"badge":"3","campaign":"w1","richId":"42","richMessage":"Soldes","richTitle":"Soldes d’hiver","richType":"img"},"token":"fcm-token-1"}}"#
            )
        }
    }

    @Test func anAlertIsANotificationMessageWithTheImageLinkAndTheSameData() async throws {
        try await withFCM { hub, server in
            let link = "https://push.example.com/api/notifications/42?exp=1900000000&sig=abc"
            let alert = job(1, platform: .fcm, channel: "fcm-token-1", message: "Sale", style: .alert, content: winterSale, imageLink: link)
            #expect(await hub.deliver([alert], logger: quietLogger) == [.sent])
            #expect(server.violations.isEmpty)
            let message = try #require(server.accepted.first)
            #expect(message.notification == ["title": "Winter sale", "body": "Sale", "image": link])
            #expect(message.androidNotification == ["click_action": "sale", "tag": "winter", "sound": "default"])
            #expect(message.data["campaign"] == "w1")
            #expect(message.data["badge"] == "3")
            #expect(message.androidPriority == "HIGH")
        }
    }

    /// Fetches the hub's first access token, again if it must: a machine busy with the whole suite has been seen not to
    /// connect to the test server within the hub's 10 s (async-http-client's connect timeout), so a test's first
    /// pushes failed as `fcm.credentialUnavailable`, where a dispatcher would send them again.
    func fetchFirstToken(of hub: FCMHub) async {
        for attempt in 1...3 {
            do {
                _ = try await hub.tokens.token()
                return
            } catch {
                if attempt == 3 { Issue.record("no access token after three attempts: \(error)") }
            }
        }
    }

    @Test func oneAccessTokenServesEveryMessageUntilItExpires() async throws {
        try await withFCM { hub, server in
            let outcomes = await hub.deliver((1...10).map { job($0, platform: .fcm) }, logger: quietLogger)
            let last = await hub.deliver([job(11, platform: .fcm)], logger: quietLogger)
            #expect(server.accepted.count == 11, "\(outcomes + last)")
            #expect(server.tokenExchanges == 1)
        }
    }

    @Test func eachDevicesMessageIsTheOneEncodedForItAloneWithItsOwnToken() throws {
        let tokens = ["fcm-token-1", "a:b_c-d/e", #"quote " and backslash \"#, "tab\tnew line\ncontrol \u{1}", "ünïcödé 🔔"]
        let jobs = tokens.enumerated().map { index, token in
            job(Int64(index), platform: .fcm, channel: token, expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        }
        let now = Date(timeIntervalSince1970: 1_799_990_000)
        let bodies = FCMHub.messages(for: jobs, now: now).map { Data($0.readableBytesView) }
        #expect(bodies[0] == FCMHub.message(for: jobs[0], token: tokens[0], now: now))
        for (body, job) in zip(bodies, jobs) {
            let parsed = try #require(try JSONSerialization.jsonObject(with: body) as? NSDictionary)
            let alone = try #require(
                try JSONSerialization.jsonObject(with: FCMHub.message(for: job, token: job.pushChannel, now: now)) as? NSDictionary)
            #expect(parsed == alone, "\(String(decoding: body, as: UTF8.self))")
        }
    }

    /// FCM far away: a batch beyond the streams of one connection opens more, up to the maximum, as APNs' does.
    @Test func aBatchBeyondTheStreamsOfOneConnectionGoesOverMoreConnectionsUpToTheMaximum() async throws {
        try await withFCM(concurrency: 10, maximumConnections: 4) { hub, server in
            server.delayAnswers(by: .milliseconds(100))
            let outcomes = await hub.deliver((1...80).map { job($0, platform: .fcm, channel: "fcm-token-\($0)") }, logger: quietLogger)
            #expect(outcomes == Array(repeating: .sent, count: 80))
            #expect(Set(server.accepted.map(\.token)).count == 80)
            #expect(hub.session.usableConnections == 4)
        }
    }

    @Test func aRefusedAccessTokenIsRenewedOnceAndTheMessageSentAgain() async throws {
        try await withFCM { hub, server in
            _ = await hub.deliver([job(1, platform: .fcm)], logger: quietLogger)
            server.revokeAccessTokens()
            // The renewal can meet a machine as busy as the first token's did (see fetchFirstToken): a renewal that
            // never reached the server exchanged nothing, and a dispatcher sends again.
            var outcomes: [DeliveryOutcome] = []
            for _ in 1...3 where outcomes != [.sent] { outcomes = await hub.deliver([job(2, platform: .fcm)], logger: quietLogger) }
            #expect(outcomes == [.sent])
            #expect(server.tokenExchanges == 2, "\(outcomes)")
        }
    }

    @Test(arguments: [("UNREGISTERED", "fcm.unregistered"), ("SENDER_ID_MISMATCH", "fcm.senderIdMismatch")])
    func aTokenFcmDisownsIsGone(errorCode: String, expected: String) async throws {
        try await withFCM { hub, server in
            let answer = errorCode == "UNREGISTERED" ? FCMTestServer.Answer.unregistered : .senderIdMismatch
            server.answer("stale", with: answer)
            let outcomes = await hub.deliver([job(1, platform: .fcm, channel: "stale")], logger: quietLogger)
            guard case .deviceGone(let code, _) = outcomes[0] else { Issue.record("\(outcomes[0])"); return }
            #expect(code == expected)
        }
    }

    @Test func anExceededQuotaIsRetriedAfterTheRetryAfterFcmGives() async throws {
        try await withFCM { hub, server in
            server.answer("busy", with: .quotaExceeded)
            let outcomes = await hub.deliver([job(1, platform: .fcm, channel: "busy")], logger: quietLogger)
            guard case .retry(let after, let code, _) = outcomes[0] else { Issue.record("\(outcomes[0])"); return }
            #expect(after == 1)
            #expect(code == "fcm.quotaExceeded")
        }
    }

    @Test func anUnavailableFcmIsRetried() async throws {
        try await withFCM { hub, server in
            server.answer("later", with: .unavailable)
            guard case .retry = await hub.deliver([job(1, platform: .fcm, channel: "later")], logger: quietLogger)[0] else {
                Issue.record("not a retry")
                return
            }
        }
    }

    @Test func aRefusedServiceAccountFailsTheWholeBatch() async throws {
        try await withFCM(concurrency: 1, firstToken: false) { hub, server in
            server.refuseAssertions("Invalid grant: account not found")
            // A token endpoint a machine busy with the whole suite did not connect to in time refused nothing, and a
            // dispatcher sends again, as it does after any outcome to retry.
            var outcomes: [DeliveryOutcome] = []
            for _ in 1...3 {
                outcomes = await hub.deliver((1...5).map { job($0, platform: .fcm) }, logger: quietLogger)
                guard case .retry(_, "fcm.credentialUnavailable", _) = outcomes[0] else { break }
            }
            for outcome in outcomes {
                guard case .failed(let code, let message) = outcome else { Issue.record("\(outcome)"); continue }
                #expect(code == "fcm.credentialRefused")
                #expect(message.contains("account not found"))
            }
            #expect(server.accepted.isEmpty)
        }
    }

    @Test func aServiceAccountFileWithoutItsKeyIsRefusedAtStart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.url.appendingPathComponent("account.json").path
        try #"{"project_id":"p","client_email":"e@p"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        var settings = HubSettings()
        settings.fcmServiceAccountFile = path
        try await withHubClient { client in
            await #expect(throws: HubConfigurationError.self) { try await FCMHub.configured(by: settings, client: client) }
        }
    }
}
