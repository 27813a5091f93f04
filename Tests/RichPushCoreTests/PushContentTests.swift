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
