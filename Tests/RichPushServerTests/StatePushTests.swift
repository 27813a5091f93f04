import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import RichPushCore
import TestSupport
import Testing

/// Read, dismiss and recall reaching a user's phones: state pushes through the loopback APNs and FCM.
extension RemoteHubTests {
    /// Alice's iPhone, Pixel and Linux desktop, and a notification delivered to all three.
    func alicesDevicesWithANotification(_ session: Session, apns: APNsTestServer, fcm: FCMTestServer) async throws -> (Credentials, Int64) {
        let alice = try await session.createUser("alice")
        try await session.register("iphone", of: alice, platform: .apns)
        try await session.register("pixel", of: alice, platform: .fcm)
        try await session.register("desktop", of: alice)
        let id = try await session.send(#"{"message":"Sale","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
        _ = try await session.waitForState("delivered", of: id)
        return (alice, id)
    }

    @Test func aDismissalOnThePixelReachesTheIPhoneAsASilentStatePush() async throws {
        try await withDirectHubs { session, apns, fcm in
            let (alice, id) = try await alicesDevicesWithANotification(session, apns: apns, fcm: fcm)
            let patch = try await session.request(
                .patch, "/api/me/notifications/\(id)", as: alice, json: #"{"userActionState":"dismissed","installationId":"pixel"}"#)
            #expect(patch.status == .ok)
            try #require(await eventually(within: .seconds(10)) { apns.accepted.count == 2 })
            let push = try #require(apns.accepted.last)
            #expect(push.pushType == "background")
            #expect(push.priority == "5")
            #expect(push.collapseId == "state-\(id)")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(push.payload.utf8)) as? [String: Any])
            #expect(body["aps"] as? [String: Int] == ["content-available": 1])
            #expect(body["richEvent"] as? String == "state")
            #expect(body["richId"] as? String == String(id))
            #expect(body["readState"] as? String == "unread")
            #expect(body["userActionState"] as? String == "dismissed")
            // The Pixel made the change: nothing goes back to it.
            #expect(fcm.accepted.count == 1)
            #expect(apns.violations.isEmpty)
        }
    }

    @Test func aRecallReachesEveryPhoneAsADeletedPush() async throws {
        try await withDirectHubs { session, apns, fcm in
            let (_, id) = try await alicesDevicesWithANotification(session, apns: apns, fcm: fcm)
            #expect(try await session.request(.delete, "/api/notifications/\(id)", as: .admin).status == .noContent)
            try #require(await eventually(within: .seconds(10)) { apns.accepted.count == 2 && fcm.accepted.count == 2 })
            #expect(fcm.accepted.last?.data == ["richEvent": "deleted", "richId": String(id)])
            #expect(fcm.accepted.last?.notification == nil)
            let body = try #require(try JSONSerialization.jsonObject(with: Data((apns.accepted.last?.payload ?? "").utf8)) as? [String: Any])
            #expect(body["richEvent"] as? String == "deleted")
            #expect(body["readState"] == nil)
        }
    }

    @Test func removingANotificationFromTheFeedOnOnePhoneReachesTheOther() async throws {
        try await withDirectHubs { session, apns, fcm in
            let (alice, id) = try await alicesDevicesWithANotification(session, apns: apns, fcm: fcm)
            let removed = try await session.request(.delete, "/api/me/notifications/\(id)?installationId=iphone", as: alice)
            #expect(removed.status == .noContent)
            try #require(await eventually(within: .seconds(10)) { fcm.accepted.count == 2 })
            #expect(fcm.accepted.last?.data["richEvent"] == "deleted")
            #expect(apns.accepted.count == 1)
        }
    }

    @Test func stateChangesAreNotPartOfTheCampaignsFunnelButAreCountedBesideIt() async throws {
        try await withDirectHubs { session, apns, fcm in
            let (alice, id) = try await alicesDevicesWithANotification(session, apns: apns, fcm: fcm)
            _ = try await session.request(.patch, "/api/me/notifications/\(id)", as: alice, json: #"{"readState":"read"}"#)
            try #require(await eventually(within: .seconds(10)) { apns.accepted.count == 2 && fcm.accepted.count == 2 })
            try #require(
                try await eventually(within: .seconds(5)) {
                    let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
                    return (status["statePushes"] as? [String: Int64])?["sent"] == 2
                })
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            #expect(status["sent"] as? Int64 == 3)
            #expect(status["targeted"] as? Int64 == 3)
        }
    }
}

extension RemoteHubTests {
    @Test func notificationHubsCarriesAStatePushToEachOtherDeviceByDirectSend() async throws {
        try await withNotificationHubs { session, hub in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            try await session.register("pixel", of: alice, platform: .fcm)
            try #require(await eventually(within: .seconds(10)) { hub.installations.count == 2 })
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            _ = try await session.request(
                .patch, "/api/me/notifications/\(id)", as: alice, json: #"{"readState":"read","installationId":"pixel"}"#)
            try #require(await eventually(within: .seconds(10)) { hub.sends.count == 3 })
            let statePush = try #require(hub.sends.last)
            #expect(statePush.format == "apple")
            #expect(statePush.deviceHandle == apnsToken(of: "iphone"))
            #expect(statePush.pushType == "background")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(statePush.body.utf8)) as? [String: Any])
            #expect(body["richEvent"] as? String == "state")
            #expect(body["readState"] as? String == "read")
            #expect(hub.violations.isEmpty)
        }
    }
}
