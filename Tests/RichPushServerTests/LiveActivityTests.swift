import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import RichPushCore
import TestSupport
import Testing

@testable import RichPushServer

/// Live Activities through the loopback APNs, with the headers and bodies Apple documents.
extension RemoteHubTests {
    static let startToken = String(repeating: "ab", count: 32)
    static let updateToken = String(repeating: "cd", count: 32)

    /// Alice's iPhone with its push-to-start token.
    func registerActivityPhone(_ session: Session) async throws -> Credentials {
        let alice = try await session.createUser("alice")
        try await session.register("iphone", of: alice, platform: .apns)
        let registered = try await session.request(
            .put, "/api/installations/iphone/activities/push-to-start", as: alice, json: #"{"token":"\#(Self.startToken)"}"#)
        #expect(registered.status == .noContent)
        return alice
    }

    func startDelivery(_ session: Session) async throws -> Int64 {
        let answer = try await session.request(
            .post, "/api/activities", as: .admin,
            json: #"""
                {"audience":"username:alice","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"A-17"},
                 "contentState":{"status":"packed","eta":1800},"alert":{"title":"Order A-17","body":"Packed"},
                 "staleDate":"2030-01-01T00:00:00Z","relevanceScore":0.5}
                """#)
        #expect(answer.status == .created)
        let id = try #require(try answer.json()["id"] as? Int64)
        #expect(answer.headers[.location] == "/api/activities/\(id)")
        return id
    }

    @Test func aLiveActivityStartsOnThePushToStartTokenWithApplesHeadersAndBody() async throws {
        try await withDirectHubs { session, apns, _ in
            _ = try await registerActivityPhone(session)
            let id = try await startDelivery(session)
            #expect(await eventually { apns.accepted.count == 1 })
            let push = try #require(apns.accepted.first)
            #expect(push.deviceToken == Self.startToken)
            #expect(push.pushType == "liveactivity")
            #expect(push.topic == APNsTestServer.topic + ".push-type.liveactivity")
            #expect(push.priority == "10")
            let timestamp = try #require(Self.aps(push.payload)["timestamp"] as? Int)
            #expect(
                push.payload
                    == #"{"aps":{"alert":{"body":"Packed","title":"Order A-17"},"attributes":{"orderNumber":"A-17","richActivityId":"\#(id)"},"attributes-type":"DeliveryAttributes","content-state":{"eta":1800,"status":"packed"},"event":"start","relevance-score":0.5,"stale-date":1893456000,"timestamp":\#(timestamp)}}"#
            )
            #expect(apns.violations.isEmpty)
            let deliveries = try await session.request(.get, "/api/activities/\(id)/deliveries", as: .admin).json()
            let item = try #require((deliveries["items"] as? [[String: Any]])?.first)
            #expect(item["installationId"] as? String == "iphone")
            #expect(item["event"] as? String == "start")
            #expect(await eventually { (try? await self.activityDelivery(id, in: session))?["state"] as? String == "sent" })
            let metrics = try await session.request(.get, "/metrics").text
            #expect(metrics.contains(#"richpush_live_activity_pushes_total{platform="apns",outcome="sent"}"#))
        }
    }

    @Test func anUpdateGoesToTheDevicesUpdateTokenOnceItHasOneAndAnEndCarriesItsDismissalDate() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await registerActivityPhone(session)
            let id = try await startDelivery(session)
            #expect(await eventually { (try? await self.activityDelivery(id, in: session))?["state"] as? String == "sent" })
            let update = try await session.request(
                .patch, "/api/activities/\(id)", as: .admin, json: #"{"contentState":{"status":"out for delivery","eta":600}}"#)
            #expect(update.status == .accepted)
            #expect(try await activityDelivery(id, in: session)["reason"] as? String == "activity.awaitingToken")
            let registered = try await session.request(
                .put, "/api/installations/iphone/activities/\(id)", as: alice, json: #"{"token":"\#(Self.updateToken)"}"#)
            #expect(registered.status == .noContent)
            #expect(await eventually { apns.accepted.count == 2 })
            let pushed = try #require(apns.accepted.last)
            #expect(pushed.deviceToken == Self.updateToken)
            #expect(pushed.priority == "5")
            let aps = Self.aps(pushed.payload)
            #expect(aps["event"] as? String == "update")
            #expect(pushed.payload.contains(#""content-state":{"eta":600,"status":"out for delivery"}"#))
            #expect(aps["attributes"] == nil && aps["alert"] == nil)
            #expect(await eventually { (try? await self.activityDelivery(id, in: session))?["state"] as? String == "sent" })
            let end = try await session.request(.delete, "/api/activities/\(id)?dismissAt=2030-01-01T01:00:00Z", as: .admin)
            #expect(end.status == .accepted)
            #expect(try end.json()["state"] as? String == "ended")
            #expect(await eventually { apns.accepted.count == 3 })
            let ended = Self.aps(try #require(apns.accepted.last).payload)
            #expect(ended["event"] as? String == "end")
            #expect(ended["dismissal-date"] as? Int == 1_893_459_600)
            #expect(try await session.request(.patch, "/api/activities/\(id)", as: .admin, json: #"{"contentState":{}}"#).status == .conflict)
            #expect(apns.violations.isEmpty)
        }
    }

    @Test func aDeviceWithoutAPushToStartTokenFailsWithTheReasonAndNothingIsSentToIt() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            let id = try await startDelivery(session)
            let delivery = try await activityDelivery(id, in: session)
            #expect(delivery["state"] as? String == "failed")
            #expect(delivery["reason"] as? String == "activity.noPushToStartToken")
            #expect(apns.accepted.isEmpty)
        }
    }

    func activityDelivery(_ id: Int64, in session: Session) async throws -> [String: Any] {
        let deliveries = try await session.request(.get, "/api/activities/\(id)/deliveries", as: .admin).json()
        return (deliveries["items"] as? [[String: Any]])?.first ?? [:]
    }

    static func aps(_ payload: String) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any])?["aps"] as? [String: Any] ?? [:]
    }
}

@Suite("Live Activities through the API")
struct LiveActivityAPITests {
    @Test(arguments: [
        (#"{"audience":"x","attributesType":"T","attributes":[],"contentState":{}}"#, "activity.invalidAttributes"),
        (#"{"audience":"x","attributesType":"T","attributes":{},"contentState":"packed"}"#, "activity.invalidContentState"),
        (#"{"audience":"x","attributesType":"","attributes":{},"contentState":{}}"#, "activity.invalidAttributesType"),
        (#"{"audience":"x","attributesType":"T","attributes":{},"contentState":{},"relevanceScore":2}"#, "activity.invalidRelevanceScore"),
        (#"{"audience":"x","attributesType":"T","attributes":{},"contentState":{},"staleDate":"tomorrow"}"#, "activity.invalidTime"),
    ])
    func aStartTheHubWouldRefuseIsRefusedWithItsReason(body: String, code: String) async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(.post, "/api/activities", as: .admin, json: body)
            #expect(answer.status == .unprocessableContent)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == code)
        }
    }

    @Test func aMemberStartsNoActivityAndRegistersTokensOnlyForItsOwnAPNsInstallations() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("iphone", of: alice, platform: .apns)
            try await session.register("laptop", of: alice)
            let start = #"{"audience":"username:alice","attributesType":"T","attributes":{},"contentState":{}}"#
            #expect(try await session.request(.post, "/api/activities", as: alice, json: start).status == .forbidden)
            let token = #"{"token":"\#(String(repeating: "ab", count: 32))"}"#
            #expect(try await session.request(.put, "/api/installations/iphone/activities/push-to-start", as: bob, json: token).status == .notFound)
            let direct = try await session.request(.put, "/api/installations/laptop/activities/push-to-start", as: alice, json: token)
            #expect((try direct.json()["error"] as? [String: Any])?["code"] as? String == "activity.notAPNs")
            let notHex = try await session.request(
                .put, "/api/installations/iphone/activities/push-to-start", as: alice, json: #"{"token":"not-a-token"}"#)
            #expect((try notHex.json()["error"] as? [String: Any])?["code"] as? String == "activity.invalidToken")
            #expect(try await session.request(.put, "/api/installations/iphone/activities/99", as: alice, json: token).status == .notFound)
        }
    }
}
