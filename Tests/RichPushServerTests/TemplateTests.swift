import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

/// Reusable campaigns with versions and Mustache placeholders.
@Suite("Templates")
struct TemplateTests {
    static let winterSale = #"""
        {"name":"winter-sale","description":"The yearly sale","message":"{{percent}}% off everything","richType":"text",
         "title":"Winter sale {{year}}","audience":"topic:sale","expiresIn":"1d","data":{"code":"{{code}}"},
         "localizations":{"fr":{"message":"{{percent}} % de remise"}}}
        """#

    func withTemplate(_ body: @Sendable (Session, Credentials) async throws -> Void) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let created = try await session.request(.post, "/api/templates", as: mark, json: Self.winterSale)
            #expect(created.status == .created)
            #expect(try created.json()["version"] as? Int64 == 1)
            #expect(created.headers[.location] == "/api/templates/winter-sale")
            try await body(session, mark)
        }
    }

    @Test func aCampaignFromATemplateFillsInItsPlaceholdersAndNamesItsVersion() async throws {
        try await withTemplate { session, mark in
            let sent = try await session.request(
                .post, "/api/notifications", as: mark,
                json: #"{"template":"winter-sale","variables":{"percent":"30","year":"2026","code":"<WS&26>"}}"#)
            #expect(sent.status == .created)
            let info = try sent.json()
            #expect(info["message"] as? String == "30% off everything")
            #expect(info["title"] as? String == "Winter sale 2026")
            #expect(info["audience"] as? String == "topic:sale")
            // A push is not HTML: nothing is escaped.
            #expect(info["data"] as? [String: String] == ["code": "<WS&26>"])
            #expect((info["localizations"] as? [String: [String: String]])?["fr"]?["message"] == "30 % de remise")
            let template = try #require(info["template"] as? [String: Any])
            #expect(template["name"] as? String == "winter-sale")
            #expect(template["version"] as? Int64 == 1)
            let expiresAt = try #require((info["expiresAt"] as? String).flatMap(Timestamp.parse))
            #expect(abs(expiresAt.timeIntervalSinceNow - 86_400) < 60)
        }
    }

    @Test func fieldsGivenBesideTheTemplateOverrideIt() async throws {
        try await withTemplate { session, mark in
            let sent = try await session.request(
                .post, "/api/notifications", as: mark,
                json:
                    #"{"template":"winter-sale","variables":{"percent":"30","year":"2026","code":"x"},"message":"Last day!","audience":"username:mark"}"#
            )
            #expect(try sent.json()["message"] as? String == "Last day!")
            #expect(try sent.json()["audience"] as? String == "username:mark")
            #expect(try sent.json()["title"] as? String == "Winter sale 2026")
        }
    }

    @Test func aPlaceholderWithoutAVariableIs422NamingItAndSendsNothing() async throws {
        try await withTemplate { session, mark in
            let sent = try await session.request(
                .post, "/api/notifications", as: mark, json: #"{"template":"winter-sale","variables":{"percent":"30","code":"x"}}"#)
            #expect(sent.status == .unprocessableContent)
            #expect(try sent.error().code == "template.missingVariable")
            #expect(try sent.error().message.contains("year"))
            let list = try await session.request(.get, "/api/notifications", as: mark).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func anUnknownTemplateIs422() async throws {
        try await withTemplate { session, mark in
            let sent = try await session.request(.post, "/api/notifications", as: mark, json: #"{"template":"summer-sale"}"#)
            #expect(sent.status == .unprocessableContent)
            #expect(try sent.error().code == "template.notFound")
        }
    }

    @Test func aPutStoresTheNextVersionAndEarlierOnesStayReadable() async throws {
        try await withTemplate { session, mark in
            let changed = try await session.request(
                .put, "/api/templates/winter-sale", as: mark, json: #"{"message":"{{percent}}% off, now","richType":"text"}"#)
            #expect(changed.status == .ok)
            #expect(try changed.json()["version"] as? Int64 == 2)
            let latest = try await session.request(.get, "/api/templates/winter-sale", as: mark).json()
            #expect(latest["message"] as? String == "{{percent}}% off, now")
            #expect(latest["title"] == nil)
            let first = try await session.request(.get, "/api/templates/winter-sale?version=1", as: mark).json()
            #expect(first["title"] as? String == "Winter sale {{year}}")
            let list = try await session.request(.get, "/api/templates", as: mark).json()["items"] as? [[String: Any]]
            #expect(list?.map { $0["version"] as? Int64 } == [2])
            let sent = try await session.request(
                .post, "/api/notifications", as: mark, json: #"{"template":"winter-sale","variables":{"percent":"40"},"audience":"x"}"#)
            #expect((try sent.json()["template"] as? [String: Any])?["version"] as? Int64 == 2)
        }
    }

    @Test(arguments: [
        (#"{"name":"Winter Sale","message":"m"}"#, 422, "template.invalidName"),
        (#"{"name":"winter","message":"{{#open}}"}"#, 422, "template.invalid"),
        (#"{"name":"winter","message":"m","richType":"gif"}"#, 422, "notification.invalidRichType"),
        (#"{"name":"winter","message":"m","expiresIn":"soon"}"#, 422, "notification.invalidExpiry"),
        (#"{"name":"winter","message":"m","badge":-435119133}"#, 422, "notification.invalidBadge"),
        (#"{"name":"winter","message":"m","sound":"bell ring"}"#, 422, "notification.invalidSound"),
        (#"{"name":"winter","message":"m","category":""}"#, 422, "notification.invalidCategory"),
        (#"{"name":"winter","message":"m","threadId":""}"#, 422, "notification.invalidThreadId"),
        (#"{"name":"winter","message":"m","audience":"a &&"}"#, 400, "audience.invalid"),
        (#"{"name":"winter","mesage":"m"}"#, 400, "request.unknownField"),
    ])
    func aTemplateThatCannotWorkIsRefused(json: String, status: Int, code: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(.post, "/api/templates", as: mark, json: json)
            #expect(Int(response.status.code) == status)
            #expect(try response.error().code == code)
            #expect((try await session.request(.get, "/api/templates", as: mark).json()["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aSecondTemplateOfTheSameNameIsAConflictAndAMemberMayNotMakeOne() async throws {
        try await withTemplate { session, _ in
            let again = try await session.request(.post, "/api/templates", as: .admin, json: Self.winterSale)
            #expect(again.status == .conflict)
            #expect(try again.error().code == "template.exists")
            let alice = try await session.createUser("alice")
            #expect(try await session.request(.post, "/api/templates", as: alice, json: #"{"name":"mine","message":"m"}"#).status == .forbidden)
        }
    }

    @Test func aRemovedTemplateIsGoneButItsCampaignsStillNameIt() async throws {
        try await withTemplate { session, mark in
            let sent = try await session.request(
                .post, "/api/notifications", as: mark, json: #"{"template":"winter-sale","variables":{"percent":"1","year":"1","code":"1"}}"#)
            let id = try #require(try sent.json()["id"] as? Int64)
            #expect(try await session.request(.delete, "/api/templates/winter-sale", as: mark).status == .noContent)
            #expect(try await session.request(.get, "/api/templates/winter-sale", as: mark).status == .notFound)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: mark).json()
            #expect((info["template"] as? [String: Any])?["name"] as? String == "winter-sale")
        }
    }
}
