import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import RichPushServer

@Suite("A notification's results")
struct ResultsTests {
    static let toAliceAndBob = #"{"message":"Sale","richType":"text","text":"20% off","audience":"username:alice || username:bob"}"#

    /// Alice (laptop, phone) and Bob (tablet) get one notification; Alice fetches it, reads it on her laptop and opens it.
    func campaignWithAnAudience(_ session: Session) async throws -> Int64 {
        let alice = try await session.createUser("alice")
        let bob = try await session.createUser("bob")
        try await session.register("laptop", of: alice)
        try await session.register("phone", of: alice)
        try await session.register("tablet", of: bob)
        let id = try await session.send(Self.toAliceAndBob, as: .admin)
        _ = try await session.waitForState("delivered", of: id)
        #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok)
        let displayed = #"{"installationId":"laptop","event":"displayed"}"#
        #expect(try await session.request(.post, "/api/me/notifications/\(id)/receipts", as: alice, json: displayed).status == .created)
        let opened = #"{"userActionState":"activated","readState":"read"}"#
        #expect(try await session.request(.patch, "/api/me/notifications/\(id)", as: alice, json: opened).status == .ok)
        return id
    }

    @Test func theDeliveriesListShowsWhereEachDeliveryWentAndWhatItsUserDid() async throws {
        try await TestGateway().run { session in
            let id = try await campaignWithAnAudience(session)
            let page = try await session.request(.get, "/api/notifications/\(id)/deliveries", as: .admin).json()
            let items = try #require(page["items"] as? [[String: Any]])
            #expect(items.map { $0["installationId"] as? String } == ["laptop", "phone", "tablet"])
            #expect(items.map { $0["owner"] as? String } == ["alice", "alice", "bob"])
            #expect(items.allSatisfy { $0["state"] as? String == "sent" && $0["attempts"] as? Int == 1 && $0["sentAt"] is String })
            #expect(items.map { $0["fetchedAt"] is String } == [true, true, false])
            #expect(items.map { $0["displayedAt"] is String } == [true, false, false])
            #expect(items.map { $0["userActionState"] as? String } == ["activated", "activated", "noInteraction"])
            #expect(items.map { $0["readState"] as? String } == ["read", "read", "unread"])
            #expect(page["next"] is NSNull)
        }
    }

    @Test func aFetchNamingItsInstallationIsThatDevicesAndHerOtherDeviceShowsSheFetchedElsewhere() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            try await session.register("phone", of: alice)
            let id = try await session.send(Self.toAliceAndBob, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            // The first fetch of each kind is the router's, its repeat is served from memory.
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok)
            #expect(try await session.request(.get, "/api/notifications/\(id)?installationId=phone", as: alice).status == .ok)
            #expect(try await session.request(.get, "/api/notifications/\(id)?installationId=phone", as: alice).status == .ok)
            let items = try #require(
                try await session.request(.get, "/api/notifications/\(id)/deliveries", as: .admin).json()["items"] as? [[String: Any]])
            #expect(items.map { $0["installationId"] as? String } == ["laptop", "phone"])
            #expect(items.map { $0["fetchedBy"] as? String } == ["user", "installation"])
            #expect(items.allSatisfy { $0["fetchedAt"] is String })
        }
    }

    @Test func aFetchNamingNoValidInstallationIsRefusedWithoutCountingIt() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let id = try await session.send(Self.toAliceAndBob, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let response = try await session.request(.get, "/api/notifications/\(id)?installationId=no%20such%20device", as: alice)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "installation.invalidId")
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            #expect(status["fetched"] as? Int64 == 0)
        }
    }

    @Test func theDeliveriesListPagesOnWithAfter() async throws {
        try await TestGateway().run { session in
            let id = try await campaignWithAnAudience(session)
            let first = try await session.request(.get, "/api/notifications/\(id)/deliveries?limit=2", as: .admin).json()
            #expect((first["items"] as? [[String: Any]])?.map { $0["installationId"] as? String } == ["laptop", "phone"])
            let after = try #require(first["next"] as? Int64)
            let second = try await session.request(.get, "/api/notifications/\(id)/deliveries?limit=2&after=\(after)", as: .admin).json()
            #expect((second["items"] as? [[String: Any]])?.map { $0["installationId"] as? String } == ["tablet"])
            #expect(second["next"] is NSNull)
        }
    }

    @Test(arguments: [("?format=csv", HTTPFields()), ("", HTTPFields([HTTPField(name: .accept, value: "text/csv")]))])
    func theDeliveriesExportAsCSVWithAHeaderRowAndARowPerDelivery(query: String, headers: HTTPFields) async throws {
        try await TestGateway().run { session in
            let id = try await campaignWithAnAudience(session)
            let response = try await session.request(.get, "/api/notifications/\(id)/deliveries\(query)", as: .admin, headers: headers)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = String(buffer: response.body).components(separatedBy: "\r\n")
            #expect(
                lines.first
                    == "installationId,owner,platform,variant,language,state,reason,attempts,sentAt,fetchedAt,displayedAt,readState,userActionState,fallbackSentAt,fetchedBy,action,actionStatus"
            )
            #expect(
                lines.dropFirst().filter { !$0.isEmpty }.map { $0.split(separator: ",", omittingEmptySubsequences: false).first } == [
                    "laptop", "phone", "tablet",
                ])
            #expect(lines.last == "")
            #expect(lines[3].hasSuffix(",unread,noInteraction,,,,"))
        }
    }

    @Test func aFieldWithACommaQuoteOrLineBreakIsQuotedInCSV() {
        #expect(CSVRow.line(["plain", "a,b", #"say "hi""#, "two\nlines", ""]) == "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\r\n")
    }

    @Test func aCellASpreadsheetWouldRunAsAFormulaIsNeutralisedInCSV() {
        #expect(
            CSVRow.line(["=HYPERLINK(\"//e.vil\",\"x\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "a=b", "2026"])
                == "\"'=HYPERLINK(\"\"//e.vil\"\",\"\"x\"\")\",'+1,'-2+3,'@SUM(A1),'\tx,\"'\rx\",a=b,2026\r\n")
    }

    @Test func anInstallationIdStartingLikeAFormulaReachesTheExportAsText() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("@evil", of: alice)
            try await session.register("-1.5", of: alice)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            let csv = String(buffer: try await session.request(.get, "/api/notifications/\(id)/deliveries?format=csv", as: .admin).body)
            let ids = csv.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map { $0.split(separator: ",").first.map(String.init) }
            #expect(ids == ["'-1.5", "'@evil"])
        }
    }

    @Test(arguments: ["=cmd|' /C calc'!A0", "=HYPERLINK(\"//e.vil\",\"x\")", "-A", "@A", " A", "A\tB"])
    func aVariantNameThatIsNotANameIs422(name: String) async throws {
        try await TestGateway().run { session in
            let json = String(decoding: try JSONSerialization.data(withJSONObject: name, options: .fragmentsAllowed), as: UTF8.self)
            let response = try await session.request(
                .post, "/api/notifications", as: .admin,
                json: #"{"message":"m","richType":"text","text":"t","variants":[{"name":\#(json),"weight":50},{"name":"B","weight":50}]}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "notification.invalidVariants")
        }
    }

    @Test func theTimelineCountsWhatHappenedInEachStepSinceCreation() async throws {
        try await TestGateway().run { session in
            let id = try await campaignWithAnAudience(session)
            let timeline = try await session.request(.get, "/api/notifications/\(id)/timeline?step=3600", as: .admin).json()
            #expect(timeline["step"] as? Int == 3600)
            let buckets = try #require(timeline["buckets"] as? [[String: Any]])
            #expect(buckets.count == 1)
            #expect(buckets[0]["sent"] as? Int == 3)
            #expect(buckets[0]["fetched"] as? Int == 1)
            #expect(buckets[0]["displayed"] as? Int == 1)
            #expect(buckets[0]["opened"] as? Int == 1)
            #expect(buckets[0]["dismissed"] as? Int == 0)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            #expect((buckets[0]["at"] as? String) == (info["createdAt"] as? String))
        }
    }

    @Test(arguments: ["step=0", "step=soon", "step=604801"])
    func aTimelineStepThatIsNotAWholeNumberOfSecondsUpToAWeekIs400(query: String) async throws {
        try await TestGateway().run { session in
            let id = try await session.send(Self.toAliceAndBob, as: .admin)
            let response = try await session.request(.get, "/api/notifications/\(id)/timeline?\(query)", as: .admin)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "request.invalidQuery")
        }
    }

    @Test(arguments: ["deliveries", "deliveries?format=csv", "timeline"])
    func aMemberMayNotReadResults(path: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x"}"#, as: alice)
            let response = try await session.request(.get, "/api/notifications/\(id)/\(path)", as: alice)
            #expect(response.status == .forbidden)
        }
    }

    @Test(arguments: ["deliveries", "timeline"])
    func theResultsOfAMissingNotificationAre404(path: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/notifications/999/\(path)", as: .admin)
            #expect(response.status == .notFound)
        }
    }
}
