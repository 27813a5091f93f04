import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import RichPushServer
import Testing

@Suite("Frequency caps through the API")
struct CampaignLimitsAPITests {
    static let campaign = #"{"message":"Sale","richType":"text","text":"20% off","audience":"username:alice"}"#

    @Test func aCampaignPastTheCapIsNotSentAndCountsAsCappedInItsStatus() async throws {
        try await TestGateway({ $0.frequencyCap = FrequencyCap(count: 1, period: 86_400) }).run { session in
            let alice = try await session.createUser("alice")
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.register("laptop", of: alice)
            let first = try await session.send(Self.campaign, as: mark)
            #expect(try await session.waitForState("delivered", of: first)["sent"] as? Int == 1)
            let second = try await session.send(Self.campaign, as: mark)
            let status = try await session.waitForState("delivered", of: second)
            #expect(status["sent"] as? Int == 0)
            #expect(status["capped"] as? Int == 1)
        }
    }

    @Test func aCampaignDueInTheDevicesQuietHoursWaitsWithItsReasonAndIsSentWhenTheyEnd() async throws {
        // Quiet from the start of this hour to two hours later, on the gateway's default zone (UTC), which the device has.
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let hour = utc.component(.hour, from: .now)
        let window = String(format: "%02d:00-%02d:00", hour, (hour + 2) % 24)
        try await TestGateway({ $0.quietHours = QuietHours(parsing: window) }).run { session in
            let alice = try await session.createUser("alice")
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.register("laptop", of: alice)
            let id = try await session.send(Self.campaign, as: mark)
            let waiting = try await session.waitUntilPending(of: id, to: "laptop", because: "delivery.quietHours")
            #expect(waiting["attempts"] as? Int == 0)
            session.clock.advance(by: 2 * 3600)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int == 1)
        }
    }

    @Test func anAdminsTransactionalNotificationReachesAUserPastTheCap() async throws {
        try await TestGateway({ $0.frequencyCap = FrequencyCap(count: 1, period: 86_400) }).run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let first = try await session.send(Self.campaign, as: .admin)
            _ = try await session.waitForState("delivered", of: first)
            let receipt = try await session.send(
                #"{"message":"Your order shipped","richType":"text","text":"t","audience":"username:alice","transactional":true}"#, as: .admin)
            #expect(try await session.waitForState("delivered", of: receipt)["sent"] as? Int == 1)
        }
    }

    @Test func aMembersOwnNotificationsAreNeitherCappedNorCountedTowardTheCap() async throws {
        try await TestGateway({ $0.frequencyCap = FrequencyCap(count: 1, period: 86_400) }).run { session in
            let alice = try await session.createUser("alice")
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.register("laptop", of: alice)
            for _ in 0..<2 {
                let own = try await session.send(#"{"message":"Note to self","richType":"text","text":"t","audience":"username:alice"}"#, as: alice)
                #expect(try await session.waitForState("delivered", of: own)["sent"] as? Int == 1)
            }
            let campaign = try await session.send(Self.campaign, as: mark)
            let status = try await session.waitForState("delivered", of: campaign)
            #expect(status["sent"] as? Int == 1)
            #expect(status["capped"] as? Int == 0)
        }
    }

    @Test func aMarketerMayNotMarkACampaignTransactional() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/notifications", as: mark,
                json: #"{"message":"Sale","richType":"text","text":"t","audience":"username:alice","transactional":true}"#)
            #expect(response.status == .forbidden)
            #expect(try response.error().code == "auth.forbidden")
        }
    }

    @Test(arguments: [
        ("frequency-cap", "3 per day"), ("frequency-cap", "0/24h"), ("quiet-hours", "22-8"), ("quiet-hours", "08:00-08:00"),
        ("default-ttl", "5w"), ("default-ttl", "soon"),
    ])
    func aCapQuietHoursOrLifetimeThatDoNotReadAsSuchStopTheStart(flag: String, value: String) {
        #expect(throws: SettingError.self) {
            try ServerConfiguration(SettingSources(flags: [flag: [value]]))
        }
    }
}
