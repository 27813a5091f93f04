import RichPushCore
import Testing

@Suite("Variants per language")
struct PushContentTests {
    let content = PushContent(
        localizations: ["fr": Localization(message: "Bonjour"), "fr-CA": Localization(message: "Allô"), "pt-BR": Localization(message: "Olá")])

    @Test(
        arguments: [
            ("fr-CA", "fr-CA"), ("fr-ca", "fr-CA"), ("fr-BE", "fr"), ("fr", "fr"), ("PT-br", "pt-BR"), ("pt-PT", nil), ("de", nil),
        ] as [(String, String?)])
    func anInstallationGetsItsExactTagElseItsPrimarySubtag(language: String, tag: String?) {
        #expect(content.localization(forInstallationLanguage: language)?.tag == tag)
    }

    @Test func anInstallationWithoutALanguageGetsTheDefaultFields() {
        #expect(content.localization(forInstallationLanguage: nil) == nil)
    }

    @Test(
        arguments: [
            ("de-CH, fr;q=0.9, en;q=0.8", "fr"), ("fr-CA-x-private", "fr-CA"), ("en, pt-br;q=0.5", "pt-BR"), ("fr;q=0, de", nil),
            ("*", nil), ("es-419, fr-ch;q=0.2", "fr"), ("  fr-ca ;q=0.7 , fr;q=0.8", "fr"),
        ] as [(String, String?)])
    func acceptLanguagePicksByRFC4647Lookup(header: String, tag: String?) {
        #expect(content.localization(forAcceptLanguage: header)?.tag == tag)
    }

    @Test(arguments: ["fr", "pt-BR", "zh-Hant-TW", "es-419", "x-klingon"])
    func wellFormedTagsAreLanguageTags(tag: String) {
        #expect(LanguageTag.isValid(tag))
    }

    @Test(arguments: ["", "fr_CA", "fr-", "-fr", "toolongprimary", "fr-CA!", String(repeating: "a-", count: 20) + "a"])
    func malformedTagsAreNot(tag: String) {
        #expect(!LanguageTag.isValid(tag))
    }

    @Test func aDevicesPushTakesItsVariantOverTheDefaultsAndItsOwnersUnreadCount() {
        let content = PushContent(
            title: "Sale", badge: .unread, data: ["k": "v"], localizations: ["fr": Localization(message: "Soldes")])
        let push = SilentPush(
            richId: 1, richType: .text, message: "Big sale", style: .silent, content: content,
            localization: content.localization(forInstallationLanguage: "fr")?.localization, unreadCount: 5)
        #expect(push.richMessage == "Soldes")
        #expect(push.richTitle == "Sale")
        #expect(push.badge == 5)
        #expect(push.keys == ["richId": "1", "richType": "text", "richMessage": "Soldes", "richTitle": "Sale", "badge": "5", "k": "v"])
    }

    @Test func aSilentPushHasNoSoundEvenWhenTheCampaignNamesOne() {
        let push = SilentPush(
            richId: 1, richType: .text, message: "m", style: .silent, content: PushContent(sound: "default"), localization: nil,
            unreadCount: nil)
        #expect(push.sound == nil)
        #expect(String(decoding: push.apnsPayload(), as: UTF8.self).contains(#""aps":{"content-available":1,"sound":""}"#))
    }
}

@Suite("App versions in audiences")
struct AppVersionTests {
    @Test(arguments: [("2.10", "2.9", true), ("2.3.0", "2.3", false), ("3", "2.99.99", true), ("0.1", "0.0.9", true)])
    func versionsCompareNumberByNumber(left: String, right: String, greater: Bool) throws {
        let a = try #require(AppVersion(parsing: left))
        let b = try #require(AppVersion(parsing: right))
        #expect((a > b) == greater)
        #expect((a.sortKey > b.sortKey) == greater)
    }

    @Test func trailingZerosDoNotMakeAnotherVersion() throws {
        #expect(AppVersion(parsing: "2.3.0") == AppVersion(parsing: "2.3"))
    }

    @Test(arguments: ["", "2.", ".3", "2.3-beta", "v2", "1234567890", "1.2.3.4.5.6.7.8.9.10.11"])
    func textThatIsNotDottedNumbersIsNoVersion(text: String) {
        #expect(AppVersion(parsing: text) == nil)
    }

    @Test(
        arguments: [
            ("appVersion >= 2.3", ["appversion:2.10"], true), ("appVersion >= 2.3", ["appversion:2.2.9"], false),
            ("appVersion<2.3", ["appversion:2.2"], true), ("!(appVersion == 2.3)", [], true), ("appVersion == 2.3", [], false),
            ("topic:sale && appVersion > 1", ["topic:sale", "appversion:1.0.1"], true), ("appVersion", ["appVersion"], true),
            ("timezone:America/New_York", ["timezone:America/New_York"], true),
        ] as [(String, [String], Bool)])
    func comparisonsReadTheInstallationsAppVersionTag(text: String, tags: [String], matches: Bool) throws {
        #expect(try TagExpression(parsing: text).matches(Set(tags)) == matches)
    }

    @Test(arguments: [("appVersion >= 2.3 && !lang:fr", "appVersion >= 2.3 && !lang:fr"), ("!(appVersion<2)", "!(appVersion < 2)")])
    func aComparisonReadsBackAsItWasWritten(text: String, canonical: String) throws {
        #expect(try TagExpression(parsing: text).description == canonical)
        #expect(try TagExpression(parsing: canonical) == TagExpression(parsing: text))
    }

    @Test(arguments: ["appVersion >= ", "appVersion >= beta", "appVersion => 2", "appVersion >= 2.3-beta"])
    func aComparisonWithoutAVersionIsRefused(text: String) {
        #expect(throws: TagExpressionError.self) { try TagExpression(parsing: text) }
    }

    @Test func theGatewaysDeviceTagsComeFromTheFields() {
        #expect(
            Tag.deviceFields(language: "fr-CA", timeZone: "America/New_York", appVersion: "2.3")
                == ["language:fr-ca", "language:fr", "timezone:America/New_York", "appversion:2.3"])
        #expect(Tag.deviceFields(language: nil, timeZone: nil, appVersion: "2.3 beta") == [])
    }
}
