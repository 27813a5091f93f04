import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@testable import RichPushServer

/// Templates against those who would crash the gateway with one, exhaust it, or read what they may not.
@Suite("Templates under attack")
struct TemplateAttackTests {
    static let winterSale = #"{"name":"winter-sale","message":"{{percent}}% off","richType":"text","data":{"coupon":"WS-{{year}}"}}"#

    func withTemplate(
        _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: @Sendable (Session, Credentials) async throws -> Void
    ) async throws {
        try await TestGateway(configure).run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            #expect(try await session.request(.post, "/api/templates", as: mark, json: Self.winterSale).status == .created)
            try await body(session, mark)
        }
    }

    static func nested(_ depth: Int) -> String {
        String(repeating: "{{#a}}", count: depth) + "x" + String(repeating: "{{/a}}", count: depth)
    }

    @Test func sectionsNestedFiveThousandDeepInASendAre422AndTheGatewayStaysUp() async throws {
        try await withTemplate { session, mark in
            let body = #"{"template":"winter-sale","message":"\#(Self.nested(5000))","variables":{"a":"v","year":"1"}}"#
            let sent = try await session.request(.post, "/api/notifications", as: mark, json: body)
            #expect(sent.status == .unprocessableContent)
            #expect(try sent.error().code == "template.tooDeep")
            #expect(try await session.request(.get, "/api/users/me", as: mark).status == .ok)
        }
    }

    @Test func aTemplateNestingSectionsDeeperThan32IsRefusedAndOneOf32IsKept() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let deep = try await session.request(
                .post, "/api/templates", as: mark, json: #"{"name":"deep","message":"\#(Self.nested(5000))","richType":"text"}"#)
            #expect(deep.status == .unprocessableContent)
            #expect(try deep.error().code == "template.tooDeep")
            let kept = try await session.request(
                .post, "/api/templates", as: mark, json: #"{"name":"kept","message":"\#(Self.nested(32))","richType":"text"}"#)
            #expect(kept.status == .created)
            let sent = try await session.request(
                .post, "/api/notifications", as: mark, json: #"{"template":"kept","variables":{"a":"v"},"audience":"username:mark"}"#)
            #expect(try sent.json()["message"] as? String == "x")
        }
    }

    @Test func aPlaceholderRepeatedUntilTheOutputPassesItsLimitIs422AsTheFieldWouldBe() async throws {
        try await withTemplate { session, mark in
            let message = String(repeating: "{{a}}", count: 6500)
            let value = String(repeating: "v", count: 32_000)
            let started = ContinuousClock.now
            let sent = try await session.request(
                .post, "/api/notifications", as: mark,
                json: #"{"template":"winter-sale","message":"\#(message)","variables":{"a":"\#(value)","year":"1"}}"#)
            #expect(sent.status == .unprocessableContent)
            #expect(try sent.error().code == "notification.invalidMessage")
            // Rendered whole, this is 208 MB built in over thirty seconds; stopped at the limit it is a few kilobytes.
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test(arguments: [
        ("data", #""data":{"coupon":"{{a}}{{a}}"}"#, "notification.invalidData"),
        ("title", #""title":"{{a}}""#, "notification.invalidTitle"),
    ])
    func eachRenderedFieldIsBoundedByItsOwnLimit(field: String, json: String, code: String) async throws {
        try await withTemplate { session, mark in
            let value = String(repeating: "é", count: 600)
            let sent = try await session.request(
                .post, "/api/notifications", as: mark,
                json: #"{"template":"winter-sale",\#(json),"variables":{"a":"\#(value)","year":"1","percent":"1"}}"#)
            #expect(sent.status == .unprocessableContent, "\(field)")
            #expect(try sent.error().code == code)
        }
    }

    @Test(arguments: ["{{.}}", "{{a.b}}", "{{uppercased(a)}}", "{{> partial}}", "{{=<% %>=}}", "{{$block}}x{{/block}}", "{{< parent}}{{/parent}}"])
    func anythingButAVariableASectionOrACommentIsRefused(placeholder: String) async throws {
        try await withTemplate { session, mark in
            let created = try await session.request(
                .post, "/api/templates", as: mark, json: #"{"name":"odd","message":"hi \#(placeholder)","richType":"text"}"#)
            #expect(created.status == .unprocessableContent)
            #expect(try created.error().code == "template.invalid")
            let sent = try await session.request(
                .post, "/api/notifications", as: mark,
                json: #"{"template":"winter-sale","message":"\#(placeholder)","variables":{"a":"v","year":"1"}}"#)
            #expect(sent.status == .unprocessableContent)
            #expect(try sent.error().code == "template.invalid")
            #expect(try !sent.error().message.contains("RichPushServer"))
        }
    }

    @Test(arguments: [
        // A mark joined to a brace makes one character of them: to the parser no tag starts there, so what follows
        // would go unchecked (a delimiter change, then thousands of sections; or {{.}} repeated).
        "\u{0600}{{!{{=< >=}}" + String(repeating: "<#a>", count: 3000), "{{#a}}" + String(repeating: "\u{0600}{{!{{.}}", count: 3000) + "{{/a}}",
        "\u{0600}{{{a}}x", "{{!}}\u{0301}" + String(repeating: "{{/a}}\u{0301}", count: 100) + "}}",
    ])
    func aBraceJoinedToAnotherCharacterCannotHideATagFromTheCheck(message: String) async throws {
        try await withTemplate { session, mark in
            let json = String(
                decoding: try JSONSerialization.data(withJSONObject: [
                    "template": "winter-sale", "message": message, "variables": ["a": "v", "year": "1"],
                ]), as: UTF8.self)
            let sent = try await session.request(.post, "/api/notifications", as: mark, json: json)
            #expect(sent.status == .unprocessableContent)
            #expect(try sent.error().code == "template.invalid")
            #expect(try await session.request(.get, "/api/users/me", as: mark).status == .ok)
        }
    }

    @Test func aSectionClosedBeforeItIsOpenedIsRefused() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let message = String(repeating: "{{/a}}", count: 40) + Self.nested(40)
            let created = try await session.request(.post, "/api/templates", as: mark, json: #"{"name":"odd","message":"\#(message)"}"#)
            #expect(created.status == .unprocessableContent)
            #expect(try created.error().code == "template.invalid")
        }
    }

    @Test func aTemplateWithMoreLanguagesThanANotificationTakesIsRefusedBeforeAnythingRenders() async throws {
        try await withTemplate { session, mark in
            let languages = (1...31).map { #""l\#($0)":{"message":"{{a}}"}"# }.joined(separator: ",")
            let sent = try await session.request(
                .post, "/api/notifications", as: mark,
                json: #"{"template":"winter-sale","localizations":{\#(languages)},"variables":{"a":"v","year":"1","percent":"1"}}"#)
            #expect(sent.status == .unprocessableContent)
            #expect(try sent.error().code == "notification.invalidLocalization")
        }
    }

    @Test func aSectionsOwnVariablePrintedInsideItCountsOnceAgainstTheLimit() throws {
        let name = String(repeating: "名", count: 190)
        let title = try Placeholders.render(
            "{{#n}}{{n}}{{/n}}", field: "title", with: ["n": name], limit: 800, tooLong: APIError.unprocessable("too", "long"))
        #expect(title == name)
    }

    @Test func aLeadingNewlineOfATemplatedTextIsKept() throws {
        #expect(
            try Placeholders.render("\nHi {{a}}", field: "text", with: ["a": "x"], limit: 100, tooLong: APIError.unprocessable("too", "long"))
                == "\nHi x")
    }

    @Test func commentsTripleBracesAndSectionsStillRender() async throws {
        try await withTemplate { session, mark in
            let sent = try await session.request(
                .post, "/api/notifications", as: mark,
                json:
                    #"{"template":"winter-sale","message":"{{! note }}{{{a}}} {{&a}}{{#a}} and more{{/a}}","variables":{"a":"<b>","year":"1"},"audience":"username:mark"}"#
            )
            #expect(try sent.json()["message"] as? String == "<b> <b> and more")
        }
    }

    @Test func aMemberMayNotSendFromATemplateNorLearnWhichExist() async throws {
        try await withTemplate { session, _ in
            let alice = try await session.createUser("alice")
            for name in ["winter-sale", "no-such-template"] {
                let sent = try await session.request(
                    .post, "/api/notifications", as: alice, json: #"{"template":"\#(name)","variables":{"percent":"1","year":"1"}}"#)
                #expect(sent.status == .forbidden, "\(name)")
                #expect(try !sent.error().message.contains("WS-"))
            }
            #expect((try await session.request(.get, "/api/me/notifications", as: alice).json()["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func theTemplateListComesInPagesByName() async throws {
        try await withTemplate { session, mark in
            for name in ["alpha", "beta", "gamma"] {
                #expect(try await session.request(.post, "/api/templates", as: mark, json: #"{"name":"\#(name)","message":"m"}"#).status == .created)
            }
            let first = try await session.request(.get, "/api/templates?limit=2", as: mark).json()
            #expect((first["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["alpha", "beta"])
            #expect(first["next"] as? String == "beta")
            let second = try await session.request(.get, "/api/templates?limit=2&after=beta", as: mark).json()
            #expect((second["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["gamma", "winter-sale"])
            #expect(second["next"] is NSNull)
            #expect(try await session.request(.get, "/api/templates?limit=1000", as: mark).status == .badRequest)
        }
    }

    @Test func aMarketerPastTheTemplateLimitIs422AndAnotherMarketerIsNotCounted() async throws {
        try await withTemplate({ $0.maximumTemplatesPerUser = 2 }) { session, mark in
            #expect(try await session.request(.post, "/api/templates", as: mark, json: #"{"name":"second","message":"m"}"#).status == .created)
            let third = try await session.request(.post, "/api/templates", as: mark, json: #"{"name":"third","message":"m"}"#)
            #expect(third.status == .unprocessableContent)
            #expect(try third.error().code == "template.limit")
            #expect(try await session.request(.put, "/api/templates/second", as: mark, json: #"{"message":"again"}"#).status == .ok)
            let nina = try await session.createUser("nina", role: .marketer)
            #expect(try await session.request(.post, "/api/templates", as: nina, json: #"{"name":"third","message":"m"}"#).status == .created)
        }
    }

    @Test func aTemplateOverItsSizeLimitIs422() async throws {
        try await withTemplate { session, mark in
            let text = String(repeating: "t", count: 33_000)
            let large = try await session.request(
                .post, "/api/templates", as: mark, json: #"{"name":"large","message":"m","richType":"text","text":"\#(text)"}"#)
            #expect(large.status == .unprocessableContent)
            #expect(try large.error().code == "template.tooLarge")
        }
    }
}
