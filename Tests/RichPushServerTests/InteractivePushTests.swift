import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import RichPushCore
import TestSupport
import Testing

@testable import RichPushServer

/// Buttons and interruption levels as each remote hub gets them, byte for byte.
extension RemoteHubTests {
    static let saleWithButtons = #"""
        {"message":"Sale","richType":"text","audience":"username:alice","pushStyle":"alert","title":"Winter sale","category":"shop",
         "interruptionLevel":"time-sensitive","relevanceScore":0.8,"channel":"offers",
         "actions":[{"id":"shop","label":"Shop now","kind":"open","url":"https://shop.example/sale"},
                    {"id":"remind","label":"Remind me tomorrow","kind":"http","url":"https://api.example/remind?key=secret","body":"{\"in\":\"1d\"}"},
                    {"id":"later","label":"Not now","kind":"dismiss"}],
         "localizations":{"fr":{"message":"Soldes","actions":[{"id":"shop","label":"Acheter"}]}}}
        """#

    /// Registers Alice's iPhone and Pixel, in `language`.
    func registerPhones(of alice: Credentials, language: String, in session: Session) async throws {
        for (id, platform, channel) in [("iphone", "apns", "aaaa01"), ("pixel", "fcm", "fcm-pixel")] {
            let response = try await session.request(
                .put, "/api/installations/\(id)", as: alice,
                json: #"{"platform":"\#(platform)","pushChannel":"\#(channel)","language":"\#(language)"}"#)
            #expect(response.status == .created)
        }
    }

    @Test func anAPNsAlertCarriesItsButtonsInterruptionLevelAndRelevanceScoreButNotAnHTTPActionsRequest() async throws {
        try await withDirectHubs { session, apns, _ in
            let alice = try await session.createUser("alice")
            try await registerPhones(of: alice, language: "en", in: session)
            let id = try await session.send(Self.saleWithButtons, as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 2)
            let push = try #require(apns.accepted.first)
            #expect(push.pushType == "alert")
            #expect(
                push.payload
                    == #"{"aps":{"alert":{"body":"Sale","title":"Winter sale"},"category":"shop","interruption-level":"time-sensitive","mutable-content":1,"relevance-score":0.8},"richActions":[{"id":"shop","kind":"open","label":"Shop now","url":"https://shop.example/sale"},{"id":"remind","kind":"http","label":"Remind me tomorrow"},{"id":"later","kind":"dismiss","label":"Not now"}],"richId":"\#(id)","richMessage":"Sale","richTitle":"Winter sale","richType":"text"}"#
            )
            #expect(apns.violations.isEmpty)
        }
    }

    @Test func anFCMAlertGoesToItsChannelWithTheButtonsAsDataInTheDevicesLanguage() async throws {
        try await withDirectHubs { session, _, fcm in
            let alice = try await session.createUser("alice")
            try await registerPhones(of: alice, language: "fr-FR", in: session)
            let id = try await session.send(Self.saleWithButtons, as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 2)
            let message = try #require(fcm.accepted.first)
            #expect(message.androidPriority == "HIGH")
            #expect(message.androidNotification == ["click_action": "shop", "channel_id": "offers"])
            #expect(message.notification == ["title": "Winter sale", "body": "Soldes"])
            #expect(
                message.data["richActions"]
                    == #"[{"id":"shop","kind":"open","label":"Acheter","url":"https://shop.example/sale"},{"id":"remind","kind":"http","label":"Remind me tomorrow"},{"id":"later","kind":"dismiss","label":"Not now"}]"#
            )
            #expect(message.data["richInterruptionLevel"] == "time-sensitive")
            #expect(message.data["richChannel"] == "offers")
            #expect(!message.body.contains("secret"))
            #expect(fcm.violations.isEmpty)
        }
    }

    @Test func aPassiveSilentPushGoesAtAndroidsNormalPriorityAndTellsTheAppsOwnAlertItsLevelAndButtons() async throws {
        try await withDirectHubs { session, apns, fcm in
            let alice = try await session.createUser("alice")
            try await registerPhones(of: alice, language: "en", in: session)
            let id = try await session.send(
                #"{"message":"Digest","richType":"text","audience":"username:alice","interruptionLevel":"passive","actions":[{"id":"read","label":"Read","kind":"open","url":"https://news.example/d"}]}"#,
                as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 2)
            let message = try #require(fcm.accepted.first)
            #expect(message.androidPriority == "NORMAL")
            #expect(message.notification == nil)
            #expect(message.data["richInterruptionLevel"] == "passive")
            #expect(message.data["richActions"] == #"[{"id":"read","kind":"open","label":"Read","url":"https://news.example/d"}]"#)
            let push = try #require(apns.accepted.first)
            #expect(push.pushType == "background")
            #expect(
                push.payload
                    == #"{"aps":{"content-available":1,"sound":""},"richActions":[{"id":"read","kind":"open","label":"Read","url":"https://news.example/d"}],"richId":"\#(id)","richInterruptionLevel":"passive","richMessage":"Digest","richType":"text"}"#
            )
            #expect(apns.violations.isEmpty && fcm.violations.isEmpty)
        }
    }
}
