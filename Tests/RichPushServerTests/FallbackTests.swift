import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import RichPushCore
import TestSupport
import Testing

@testable import RichPushServer

extension RemoteHubTests {
    /// A sale to Alice's iPhone and Pixel and Bob's iPhone, with a ten-minute fetch deadline, delivered.
    func sendSale(_ session: Session) async throws -> (id: Int64, alice: Credentials, bob: Credentials) {
        let alice = try await session.createUser("alice")
        let bob = try await session.createUser("bob")
        try await session.register("iphone", of: alice, platform: .apns, tags: ["fans"])
        try await session.register("pixel", of: alice, platform: .fcm, tags: ["fans"])
        try await session.register("bob-iphone", of: bob, platform: .apns, tags: ["fans"])
        let id = try await session.send(
            #"{"message":"Half price today","title":"Sale","richType":"text","text":"Everything","audience":"fans","fallback":{"after":"PT10M","style":"alert"}}"#,
            as: .admin)
        #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 3)
        return (id, alice, bob)
    }

    @Test func devicesThatNeverFetchGetExactlyOneAlertEachWithTheBodyTheirHubExpects() async throws {
        try await withDirectHubs { session, apns, fcm in
            let (id, _, bob) = try await sendSale(session)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: bob).status == .ok)
            _ = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin)
            session.clock.advance(by: 601)
            #expect(await eventually { apns.accepted.count == 3 && fcm.accepted.count == 2 })
            let alert = try #require(apns.accepted.last)
            #expect(alert.deviceToken == apnsToken(of: "iphone"))
            #expect(alert.pushType == "alert")
            #expect(alert.priority == "10")
            #expect(
                alert.payload
                    == #"{"aps":{"alert":{"body":"Half price today","title":"Sale"},"category":"richPush","mutable-content":1},"richId":"\#(id)","richMessage":"Half price today","richTitle":"Sale","richType":"text"}"#
            )
            let message = try #require(fcm.accepted.last)
            #expect(message.token == "pixel-channel")
            #expect(message.notification == ["title": "Sale", "body": "Half price today"])
            #expect(message.data["richId"] == String(id))
            #expect(apns.violations.isEmpty && fcm.violations.isEmpty)
            var status: [String: Any] = [:]
            #expect(
                try await eventually {
                    status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
                    return (status["fallbacks"] as? [String: Any])?["sent"] as? Int64 == 2
                })
            #expect((status["fallbacks"] as? [String: Any])?["fetchedAfter"] as? Int64 == 0)
            #expect(status["sent"] as? Int64 == 3)
            let deliveries = try await session.request(.get, "/api/notifications/\(id)/deliveries", as: .admin).json()
            let fallbackSent = (deliveries["items"] as? [[String: Any]] ?? []).reduce(into: [String: Bool]()) {
                $0[$1["installationId"] as? String ?? ""] = $1["fallbackSentAt"] is String
            }
            #expect(fallbackSent == ["iphone": true, "pixel": true, "bob-iphone": false])
            let metrics = try await session.request(.get, "/metrics").text
            #expect(metrics.contains(#"richpush_fallbacks_total{platform="fcm",outcome="sent"}"#))
            // Long after, a later notification's fallback to Bob marks a point the dispatcher has looked past: none
            // of the sale's went again.
            session.clock.advance(by: 3600)
            let later = try await session.send(
                #"{"message":"m","richType":"text","text":"t","audience":"username:bob","fallback":{"after":"PT1M"}}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: later)
            session.clock.advance(by: 61)
            #expect(await eventually { apns.accepted.filter { $0.pushType == "alert" }.count == 2 })
            let alerts = apns.accepted.filter { $0.pushType == "alert" }.map { $0.payload.contains(#""richId":"\#(id)""#) }
            #expect(alerts == [true, false])
            #expect(fcm.accepted.count == 2)
        }
    }

    /// A fetch that names no installation counts for its user: both of Alice's alerts brought her in.
    @Test func aUserWhoFetchesAfterHerAlertsCountsForEachOfThemAsFetchedAfter() async throws {
        try await withDirectHubs { session, apns, fcm in
            let (id, alice, _) = try await sendSale(session)
            session.clock.advance(by: 601)
            #expect(await eventually { apns.accepted.count == 4 && fcm.accepted.count == 2 })
            func fallbacks() async throws -> [String: Any] {
                try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["fallbacks"] as? [String: Any] ?? [:]
            }
            #expect(try await eventually { try await fallbacks()["sent"] as? Int64 == 3 })
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok)
            #expect(try await fallbacks()["fetchedAfter"] as? Int64 == 2)
        }
    }
}

/// `fallback` on a new notification, as the API takes and shows it.
@Suite("Fallbacks through the API")
struct FallbackAPITests {
    @Test(arguments: [
        #"{"after":"PT30S"}"#, #"{"after":"PT25H"}"#, #"{"after":"10m"}"#, #"{"after":"PT10M","style":"banner"}"#, #"{"style":"alert"}"#,
    ])
    func aFallbackOutsideItsRangeOrStyleIsRefusedWithNothingStored(_ fallback: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(
                .post, "/api/notifications", as: .admin,
                json: #"{"message":"m","richType":"text","text":"t","audience":"username:admin","fallback":\#(fallback)}"#)
            #expect(response.status == .unprocessableContent)
            #expect((try response.json()["error"] as? [String: Any])?["code"] as? String == "notification.invalidFallback")
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func anAlertStyleNotificationTakesNoFallback() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(
                .post, "/api/notifications", as: .admin,
                json: #"{"message":"m","richType":"text","text":"t","pushStyle":"alert","fallback":{"after":"PT10M"}}"#)
            #expect(response.status == .unprocessableContent)
            #expect((try response.json()["error"] as? [String: Any])?["code"] as? String == "notification.invalidFallback")
        }
    }

    @Test func aTemplatesFallbackIsLeftBehindBySendingItAsAnAlert() async throws {
        try await TestGateway().run { session in
            let template = #"{"name":"sale","message":"Sale","richType":"text","text":"t","fallback":{"after":"PT10M"}}"#
            #expect(try await session.request(.post, "/api/templates", as: .admin, json: template).status == .created)
            let alert = try await session.send(#"{"template":"sale","audience":"username:admin","pushStyle":"alert"}"#, as: .admin)
            let silent = try await session.send(#"{"template":"sale","audience":"username:admin"}"#, as: .admin)
            let alertInfo = try await session.request(.get, "/api/notifications/\(alert)/info", as: .admin).json()
            #expect(alertInfo["pushStyle"] as? String == "alert")
            #expect(alertInfo["fallback"] == nil)
            let silentInfo = try await session.request(.get, "/api/notifications/\(silent)/info", as: .admin).json()
            #expect(silentInfo["fallback"] as? [String: String] == ["after": "PT10M", "style": "alert"])
        }
    }

    @Test func theNotificationShowsItsFallbackAsAnISODuration() async throws {
        try await TestGateway().run { session in
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"t","fallback":{"after":"PT1H30M","style":"alert"}}"#, as: .admin)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            #expect(info["fallback"] as? [String: String] == ["after": "PT1H30M", "style": "alert"])
        }
    }

    @Test func theServerDefaultGivesSilentPushesAFallbackAndAlertsNone() async throws {
        try await TestGateway { $0.fallbackAfter = 600 }.run { session in
            let silent = try await session.send(#"{"message":"m","richType":"text","text":"t"}"#, as: .admin)
            let alert = try await session.send(#"{"message":"m","richType":"text","text":"t","pushStyle":"alert"}"#, as: .admin)
            let silentInfo = try await session.request(.get, "/api/notifications/\(silent)/info", as: .admin).json()
            #expect(silentInfo["fallback"] as? [String: String] == ["after": "PT10M", "style": "alert"])
            let alertInfo = try await session.request(.get, "/api/notifications/\(alert)/info", as: .admin).json()
            #expect(alertInfo["fallback"] == nil)
        }
    }
}
