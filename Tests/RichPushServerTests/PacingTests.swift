import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import RichPushCore
import RichPushServer
import TestSupport
import Testing

@Suite("Delivery rates through the API")
struct PacingTests {
    static func campaign(rate: String) -> String {
        #"{"message":"Sale","richType":"text","text":"t","audience":"topic:sale","deliveryRate":\#(rate)}"#
    }

    @Test(arguments: ["59", "0", "-60", "6000001"])
    func aDeliveryRateOutsideOneASecondToAHundredThousandASecondIs422WithNothingStored(_ rate: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: Self.campaign(rate: rate))
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "notification.invalidDeliveryRate")
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(arguments: ["1.5", #""6000""#])
    func aDeliveryRateThatIsNotAWholeNumberIs400NamingTheField(_ rate: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: Self.campaign(rate: rate))
            #expect(response.status == .badRequest)
            #expect(try response.error().message.contains("deliveryRate"))
        }
    }

    @Test func aCampaignAtSixtyAMinuteLetsOneDeviceGoEachSecondAndShowsTheOthersWaitingForTheirTurn() async throws {
        try await TestGateway(clock: AdvancedWallClock(stopped: true)).run { session in
            for name in ["alice", "bob", "carol"] {
                let user = try await session.createUser(name)
                try await session.register("\(name)-laptop", of: user, tags: ["topic:sale"])
            }
            let id = try await session.send(Self.campaign(rate: "60"), as: .admin)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            #expect(info["deliveryRate"] as? Int == 60)
            _ = try await session.waitUntilPending(of: id, to: "carol-laptop", because: "delivery.paced")
            var status: [String: Any] = [:]
            #expect(
                try await eventually {
                    status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
                    return status["sent"] as? Int == 1
                })
            #expect(status["pending"] as? Int == 2)
            // Turns fall due in steps of a tenth of a second.
            session.clock.advance(by: 1.1)
            #expect(
                try await eventually {
                    try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["sent"] as? Int == 2
                })
            _ = try await session.waitUntilPending(of: id, to: "carol-laptop", because: "delivery.paced")
            session.clock.advance(by: 1)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int == 3)
        }
    }

    /// A gateway whose dispatcher claims one delivery at a time, under an egress limit any image fetch reaches.
    func egressLimitedGateway() -> TestGateway {
        TestGateway(clock: AdvancedWallClock(stopped: true)) {
            $0.payloadEgressLimit = 1
            $0.dispatchBatchSize = 1
            $0.dispatchBatchesInFlight = 1
        }
    }

    @Test func imagePushesWaitWhilePayloadsGoOutAtTheEgressLimitAndOtherPushesGoOn() async throws {
        try await egressLimitedGateway().run { session in
            let alice = try await session.createUser("alice")
            for device in ["laptop", "desktop", "tablet"] { try await session.register(device, of: alice) }
            let image = try await session.upload(as: .admin)
            let first = try await session.send(
                #"{"message":"Look","richType":"img","imageId":\#(image),"audience":"username:alice","deliveryRate":60}"#, as: .admin)
            // One device goes at once, the next a second later; fetching the image puts the egress at the limit.
            #expect(
                try await eventually { try await session.request(.get, "/api/notifications/\(first)/status", as: .admin).json()["sent"] as? Int == 1 }
            )
            #expect(try await session.request(.get, "/api/notifications/\(first)", as: alice).status == .ok)
            session.clock.advance(by: 0.5)
            #expect(try await session.request(.get, "/api/notifications/\(first)", as: alice).status == .ok)
            session.clock.advance(by: 0.6)
            // The next turn has come, but the payloads went out at the limit within the last second: the text goes,
            // and the dispatcher has then looked past the image's turn.
            let text = try await session.send(#"{"message":"Hi","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: text)
            #expect(try await session.request(.get, "/api/notifications/\(first)/status", as: .admin).json()["sent"] as? Int == 1)
            // A second with no fetch, and the image campaign goes on: its second and third turns have both come.
            session.clock.advance(by: 1)
            #expect(
                try await eventually { try await session.request(.get, "/api/notifications/\(first)/status", as: .admin).json()["sent"] as? Int == 3 }
            )
        }
    }
}
