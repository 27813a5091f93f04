import AsyncHTTPClient
import Foundation
import HubTestServers
import RichPushCore
import Synchronization
import TestSupport
import Testing

@testable import RichPushHubs

@Suite("APNs over HTTP/2 with token auth")
struct APNsHubTests {
    /// Runs `body` with a loopback APNs and a hub configured for it.
    func withAPNs(
        concurrency: Int = 16, keyFile: ((APNsTestServer, URL) throws -> String)? = nil,
        _ body: (APNsHub, APNsTestServer) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await APNsTestServer.start(directory: scratch.url)
        var hub: APNsHub?
        do {
            var settings = HubSettings()
            settings.apnsKeyFile = try keyFile?(server, scratch.url) ?? server.keyFile
            settings.apnsKeyId = APNsTestServer.keyId
            settings.apnsTeamId = APNsTestServer.teamId
            settings.apnsTopic = APNsTestServer.topic
            settings.apnsEndpoint = server.endpoint
            settings.tlsCAFile = server.authority.caFile
            settings.maximumStreams = concurrency
            hub = try await APNsHub.configured(by: settings)
            try await body(try #require(hub), server)
            await hub?.shutdown()
            await server.stop()
        } catch {
            await hub?.shutdown()
            await server.stop()
            throw error
        }
    }

    @Test func aSilentPushArrivesAsABackgroundPushWithAppleHeadersAndBody() async throws {
        try await withAPNs { hub, server in
            let expiresAt = Date(timeIntervalSince1970: 1_900_000_000)
            let outcomes = await hub.deliver([job(1, expiresAt: expiresAt)], logger: quietLogger)
            #expect(outcomes == [.sent])
            #expect(server.violations.isEmpty)
            let push = try #require(server.accepted.first)
            #expect(push.pushType == "background")
            #expect(push.priority == "5")
            #expect(push.expiration == "1900000000")
            #expect(push.collapseId == "richpush-42")
            #expect(push.apnsId == APNsHub.apnsId(notificationId: 42, installationId: "device-1"))
            let payload = object(push.payload)
            #expect(payload["richId"] as? String == "42")
            #expect(payload["richType"] as? String == "img")
            #expect(payload["richMessage"] as? String == "Check this image out!")
            #expect((payload["aps"] as? [String: Any])?["content-available"] as? Int == 1)
        }
    }

    @Test func anAlertStylePushIsAMutableContentAlertAtPriorityTen() async throws {
        try await withAPNs { hub, server in
            #expect(await hub.deliver([job(1, style: .alert)], logger: quietLogger) == [.sent])
            let push = try #require(server.accepted.first)
            #expect(push.pushType == "alert")
            #expect(push.priority == "10")
            let aps = try #require(object(push.payload)["aps"] as? [String: Any])
            #expect(aps["mutable-content"] as? Int == 1)
            #expect((aps["alert"] as? [String: Any])?["body"] as? String == "Check this image out!")
        }
    }

    @Test func aFrenchAndAnEnglishDeviceEachGetTheirVariantWithTitleBadgeAndData() async throws {
        try await withAPNs { hub, server in
            let jobs = [
                job(1, message: "Sale", content: winterSale, language: "fr-FR"), job(2, message: "Sale", content: winterSale, language: "en"),
            ]
            #expect(await hub.deliver(jobs, logger: quietLogger) == [.sent, .sent])
            #expect(server.violations.isEmpty)
            let payloads = Dictionary(uniqueKeysWithValues: server.accepted.map { ($0.deviceToken, $0.payload) })
            #expect(
                payloads[jobs[0].pushChannel]
                    == #"{"aps":{"content-available":1,"sound":""},"badge":"3","campaign":"w1","richId":"42","richMessage":"Soldes","richTitle":"Soldes d’hiver","richType":"img"}"#
            )
            #expect(
                payloads[jobs[1].pushChannel]
                    == #"{"aps":{"content-available":1,"sound":""},"badge":"3","campaign":"w1","richId":"42","richMessage":"Sale","richTitle":"Winter sale","richType":"img"}"#
            )
        }
    }

    @Test func anAlertCarriesTitleSoundBadgeCategoryAndThreadInAps() async throws {
        try await withAPNs { hub, server in
            #expect(await hub.deliver([job(1, message: "Sale", style: .alert, content: winterSale)], logger: quietLogger) == [.sent])
            #expect(server.violations.isEmpty)
            #expect(
                server.accepted.first?.payload
                    == #"{"aps":{"alert":{"body":"Sale","title":"Winter sale"},"badge":3,"category":"sale","mutable-content":1,"sound":"default","thread-id":"winter"},"campaign":"w1","richId":"42","richMessage":"Sale","richTitle":"Winter sale","richType":"img"}"#
            )
        }
    }

    @Test func anUnreadBadgeIsEachDevicesOwnerCount() async throws {
        try await withAPNs { hub, server in
            let content = PushContent(badge: .unread)
            let jobs = [job(1, style: .alert, content: content, unreadCount: 4), job(2, style: .alert, content: content, unreadCount: 7)]
            #expect(await hub.deliver(jobs, logger: quietLogger) == [.sent, .sent])
            let badges = server.accepted.map { (object($0.payload)["aps"] as? [String: Any])?["badge"] as? Int }
            #expect(badges.sorted { ($0 ?? 0) < ($1 ?? 0) } == [4, 7])
        }
    }

    @Test func usersOfTwoABVariantsInOneBatchEachGetTheirVariantsMessage() async throws {
        try await withAPNs { hub, server in
            let jobs = [
                job(1, message: "20% off", abVariant: "A"), job(2, message: "Free shipping", abVariant: "B"),
                job(3, message: "20% off", abVariant: "A"),
            ]
            #expect(await hub.deliver(jobs, logger: quietLogger) == [.sent, .sent, .sent])
            let messages = Dictionary(uniqueKeysWithValues: server.accepted.map { ($0.deviceToken, object($0.payload)["richMessage"] as? String) })
            #expect(messages == [jobs[0].pushChannel: "20% off", jobs[1].pushChannel: "Free shipping", jobs[2].pushChannel: "20% off"])
        }
    }

    @Test func theApnsIdIsTheSameUUIDForEveryAttemptOfOneNotificationToOneDevice() {
        let first = APNsHub.apnsId(notificationId: 7, installationId: "phone")
        #expect(first == APNsHub.apnsId(notificationId: 7, installationId: "phone"))
        #expect(first != APNsHub.apnsId(notificationId: 7, installationId: "tablet"))
        #expect(first != APNsHub.apnsId(notificationId: 8, installationId: "phone"))
        #expect(UUID(uuidString: first)?.uuidString.lowercased() == first)
        #expect(Array(first)[14] == "8", "version 8")
        #expect("89ab".contains(Array(first)[19]), "the RFC 4122 variant")
    }

    @Test func oneProviderTokenServesEveryPushUntilItIsRefreshed() async throws {
        try await withAPNs { hub, server in
            _ = await hub.deliver((1...20).map { job($0) }, logger: quietLogger)
            _ = await hub.deliver([job(21)], logger: quietLogger)
            #expect(server.accepted.count == 21)
            #expect(server.providerTokens.count == 1)
        }
    }

    @Test func anExpiredProviderTokenIsReplacedOnceAndThePushSentAgain() async throws {
        try await withAPNs { hub, server in
            _ = await hub.deliver([job(1)], logger: quietLogger)
            server.expireLatestProviderToken()
            #expect(await hub.deliver((2...5).map { job($0) }, logger: quietLogger) == Array(repeating: .sent, count: 4))
            #expect(server.providerTokens.count == 2)
            #expect(server.accepted.count == 5)
        }
    }

    @Test func eachOutcomeIsToldAsItsAnswerArrivesWhileTheBatchWaitsForItsSlowest() async throws {
        try await withAPNs { hub, server in
            // The first push of a batch goes ahead alone until APNs has accepted one: the held third is not it.
            let jobs = (1...3).map { job($0) }
            server.holdAnswers(to: jobs[2].pushChannel)
            let told = ToldOutcomes()
            async let outcomes = hub.deliver(jobs, logger: quietLogger, progress: DeliveryProgress(told.tell))
            #expect(await eventually(within: .seconds(60)) { told.indexes == [0, 1] })
            #expect(told.outcomes == [.sent, .sent])
            server.releaseHeldAnswers()
            #expect(await outcomes == [.sent, .sent, .sent])
            #expect(told.indexes == [0, 1, 2])
        }
    }

    @Test(arguments: [(410, "Unregistered"), (410, "ExpiredToken"), (400, "BadDeviceToken")])
    func aDeviceTokenApnsNoLongerKnowsIsGone(status: Int, reason: String) async throws {
        try await withAPNs { hub, server in
            let gone = job(1)
            server.answer(gone.pushChannel, with: .init(status: status, reason: reason))
            let outcomes = await hub.deliver([gone, job(2)], logger: quietLogger)
            guard case .deviceGone(let code, _) = outcomes[0] else { Issue.record("\(outcomes[0])"); return }
            #expect(code == "apns." + reason.prefix(1).lowercased() + reason.dropFirst())
            #expect(outcomes[1] == .sent)
        }
    }

    @Test func tooManyRequestsIsRetriedAfterTheRetryAfterApnsGives() async throws {
        try await withAPNs { hub, server in
            let throttled = job(1)
            server.answer(throttled.pushChannel, with: .init(status: 429, reason: "TooManyRequests", retryAfter: "30"))
            let outcomes = await hub.deliver([throttled], logger: quietLogger)
            guard case .retry(let after, let code, _) = outcomes[0] else { Issue.record("\(outcomes[0])"); return }
            #expect(after == 30)
            #expect(code == "apns.tooManyRequests")
        }
    }

    @Test func anUnavailableApnsIsRetried() async throws {
        try await withAPNs { hub, server in
            let unlucky = job(1)
            server.answer(unlucky.pushChannel, with: .init(status: 503, reason: "ServiceUnavailable"))
            guard case .retry = await hub.deliver([unlucky], logger: quietLogger)[0] else { Issue.record("not a retry"); return }
        }
    }

    @Test func aKeyApnsRejectsFailsTheWholeBatchAfterOneRequest() async throws {
        let otherKey: (APNsTestServer, URL) throws -> String = { _, directory in
            let path = directory.appendingPathComponent("other.p8").path
            try P256Key.generatePEM().write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        try await withAPNs(concurrency: 1, keyFile: otherKey) { hub, server in
            let outcomes = await hub.deliver((1...10).map { job($0) }, logger: quietLogger)
            #expect(outcomes == Array(repeating: .failed(code: "apns.invalidProviderToken", message: outcomes[0].message), count: 10))
            #expect(server.violations == ["403 InvalidProviderToken"])
        }
    }

    @Test func aPushOverTheSizeLimitFailsWithoutBeingSent() async throws {
        try await withAPNs { hub, server in
            let outcomes = await hub.deliver([job(1, message: String(repeating: "é", count: 2100))], logger: quietLogger)
            guard case .failed(let code, _) = outcomes[0] else { Issue.record("\(outcomes[0])"); return }
            #expect(code == "apns.payloadTooLarge")
            #expect(server.accepted.isEmpty && server.violations.isEmpty)
        }
    }

    @Test func incompleteSettingsNameWhatIsMissing() async throws {
        var settings = HubSettings()
        settings.apnsKeyFile = "/nonexistent.p8"
        settings.apnsKeyId = "KEY"
        await #expect(throws: HubConfigurationError("apns-key-file, apns-key-id also need apns-team-id, apns-topic")) {
            try await APNsHub.configured(by: settings)
        }
    }
}

extension DeliveryOutcome {
    var message: String {
        switch self {
        case .sent: ""
        case .retry(_, _, let message), .failed(_, let message), .deviceGone(_, let message), .postponed(_, _, let message): message
        }
    }
}

/// What a hub told of its batch's outcomes, in the order told.
final class ToldOutcomes: Sendable {
    private let told = Mutex<[(index: Int, outcome: DeliveryOutcome)]>([])

    @Sendable func tell(_ index: Int, _ outcome: DeliveryOutcome) {
        told.withLock { $0.append((index, outcome)) }
    }

    var indexes: [Int] { told.withLock { $0.map(\.index).sorted() } }
    var outcomes: [DeliveryOutcome] { told.withLock { $0.map(\.outcome) } }
}
