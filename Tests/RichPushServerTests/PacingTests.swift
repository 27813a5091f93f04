import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import RichPushCore
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
}
