import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@Suite("A/B variants through the API")
struct VariantAPITests {
    static func test(variants: String) -> String {
        #"{"message":"Sale","richType":"text","text":"t","audience":"topic:sale","variants":[\#(variants)]}"#
    }
    static let twoArms = test(
        variants: #"{"name":"A","weight":50,"message":"20% off","title":"Sale"},{"name":"B","weight":50,"message":"Free shipping"}"#)

    @Test func theStatusOfAnABTestHasAFunnelPerVariantAndInfoListsThem() async throws {
        try await TestGateway().run { session in
            for name in ["alice", "bob", "carol"] {
                let user = try await session.createUser(name)
                try await session.register("\(name)-laptop", of: user, tags: ["topic:sale"])
            }
            let id = try await session.send(Self.twoArms, as: .admin)
            let status = try await session.waitForState("delivered", of: id)
            let variants = try #require(status["variants"] as? [[String: Any]])
            #expect(variants.map { $0["name"] as? String } == ["A", "B"])
            #expect(variants.map { $0["targeted"] as? Int ?? 0 }.reduce(0, +) == 3)
            #expect(variants.map { $0["sent"] as? Int ?? 0 }.reduce(0, +) == 3)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            let listed = try #require(info["variants"] as? [[String: Any]])
            #expect(listed.map { $0["message"] as? String } == ["20% off", "Free shipping"])
            #expect(listed.map { $0["title"] as? String } == ["Sale", nil])
        }
    }

    @Test func eachDeliveryNamesTheVariantItsUserWasAssignedInTheListAndTheCSV() async throws {
        try await TestGateway().run { session in
            let names = ["alice", "bob", "carol", "dave", "erin", "frank"]
            for name in names {
                let user = try await session.createUser(name)
                try await session.register("\(name)-laptop", of: user, tags: ["topic:sale"])
            }
            let id = try await session.send(Self.twoArms, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let arms = [
                Variant(name: "A", weight: 50, message: "", content: PushContent()),
                Variant(name: "B", weight: 50, message: "", content: PushContent()),
            ]
            let expected = names.map { Variant.assigned(to: $0, of: id, among: arms)?.name }
            // Six users land in both arms for this id; a list of one arm only would not tell the column apart.
            #expect(Set(expected.compactMap { $0 }) == ["A", "B"])

            let page = try await session.request(.get, "/api/notifications/\(id)/deliveries", as: .admin).json()
            let items = try #require(page["items"] as? [[String: Any]])
            #expect(items.map { $0["owner"] as? String } == names)
            #expect(items.map { $0["variant"] as? String } == expected)

            let csv = try await session.request(.get, "/api/notifications/\(id)/deliveries?format=csv", as: .admin)
            let rows = String(buffer: csv.body).components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
            #expect(rows.map { String($0.split(separator: ",", omittingEmptySubsequences: false)[3]) } == expected.map { $0 ?? "" })
        }
    }

    @Test func theStatusShowsHowSoonTheDevicesOfEachVariantFetchedIt() async throws {
        try await TestGateway(clock: AdvancedWallClock(stopped: true)).run { session in
            let names = ["alice", "bob", "carol", "dave", "erin", "frank"]
            var users: [String: Credentials] = [:]
            for name in names {
                users[name] = try await session.createUser(name)
                try await session.register("\(name)-laptop", of: users[name]!, tags: ["topic:sale"])
            }
            let id = try await session.send(Self.twoArms, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let arms = [
                Variant(name: "A", weight: 50, message: "", content: PushContent()),
                Variant(name: "B", weight: 50, message: "", content: PushContent()),
            ]
            let armA = names.filter { Variant.assigned(to: $0, of: id, among: arms)?.name == "A" }
            let armB = names.filter { Variant.assigned(to: $0, of: id, among: arms)?.name == "B" }
            // Two of A fetch 20 s after their push, one of B five minutes after; the rest never do.
            session.clock.advance(by: 20)
            for name in armA.prefix(2) {
                let fetch = try await session.request(.get, "/api/notifications/\(id)?installationId=\(name)-laptop", as: users[name]!)
                #expect(fetch.status == .ok)
            }
            session.clock.advance(by: 280)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: users[armB[0]]!).status == .ok)
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            let reach = try #require(status["reach"] as? [String: Any])
            #expect(reach["fetchedWithin1m"] as? Int == 2)
            #expect(reach["fetchedWithin10m"] as? Int == 3)
            #expect(reach["reached"] as? Int == 3)
            #expect(reach["notReached"] as? Int == 3)
            #expect(reach["fetchSecondsP50"] as? Double == 20)
            #expect(reach["fetchSecondsP90"] as? Double == 300)
            let variants = try #require(status["variants"] as? [[String: Any]])
            let byName = variants.reduce(into: [String: [String: Any]]()) { $0[$1["name"] as? String ?? ""] = $1["reach"] as? [String: Any] }
            #expect(byName["A"]?["reached"] as? Int == 2)
            #expect(byName["A"]?["notReached"] as? Int == armA.count - 2)
            #expect(byName["B"]?["fetchedWithin1m"] as? Int == 0)
            #expect(byName["B"]?["fetchSecondsP50"] as? Double == 300)
        }
    }

    @Test(arguments: [
        #"{"name":"A","weight":60},{"name":"B","weight":50}"#,
        #"{"name":"A","weight":100}"#,
        #"{"name":"A","weight":20},{"name":"B","weight":20},{"name":"C","weight":20},{"name":"D","weight":20},{"name":"E","weight":10},{"name":"F","weight":10}"#,
        #"{"name":"A","weight":50},{"name":"a","weight":50}"#,
        #"{"name":"A","weight":50},{"weight":50}"#,
        #"{"name":"A","weight":150},{"name":"B","weight":-50}"#,
    ])
    func weightsThatDoNotAddUpToAHundredOrTheWrongNumberOfVariantsAre422(variants: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: Self.test(variants: variants))
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "notification.invalidVariants")
            #expect((try await session.request(.get, "/api/notifications", as: .admin).json()["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aVariantsOwnFieldIsCheckedAndTheErrorNamesTheVariant() async throws {
        try await TestGateway().run { session in
            let tooLong = String(repeating: "x", count: 201)
            let response = try await session.request(
                .post, "/api/notifications", as: .admin,
                json: Self.test(variants: #"{"name":"A","weight":50},{"name":"B","weight":50,"title":"\#(tooLong)"}"#))
            #expect(response.status == .unprocessableContent)
            let error = try response.error()
            #expect(error.code == "notification.invalidTitle")
            #expect(error.message.hasPrefix("Variant B: "))
        }
    }

    @Test func aFieldAVariantCannotHaveIs400NamingIt() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(
                .post, "/api/notifications", as: .admin,
                json: Self.test(variants: #"{"name":"A","weight":50,"audience":"topic:other"},{"name":"B","weight":50}"#))
            #expect(response.status == .badRequest)
            let error = try response.error()
            #expect(error.code == "request.unknownField")
            #expect(error.message.contains("variants[0].audience"))
        }
    }

    @Test func aMemberMayNotRunAnABTest() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .post, "/api/notifications", as: alice,
                json: #"{"message":"m","richType":"text","variants":[{"name":"A","weight":50},{"name":"B","weight":50}]}"#)
            #expect(response.status == .forbidden)
        }
    }
}
