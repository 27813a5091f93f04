import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

/// What a marketer's push carries besides its message: title, sound, badge, category, thread, data, and a variant
/// per language.
@Suite("Campaign content")
struct CampaignContentTests {
    static let winterSale = #"""
        {"message":"Big sale","richType":"text","text":"All of it","audience":"topic:sale","title":"Winter sale","data":{"campaign":"w1"},
         "localizations":{"fr":{"message":"Soldes","title":"Soldes d’hiver","text":"Tout"}}}
        """#

    func register(_ id: String, of user: Credentials, language: String?, in session: Session) async throws {
        let language = language.map { #","language":"\#($0)""# } ?? ""
        let response = try await session.request(
            .put, "/api/installations/\(id)", as: user, json: #"{"platform":"direct","pushChannel":"\#(id)","tags":["topic:sale"]\#(language)}"#)
        #expect(response.status == .created)
    }

    @Test func aFrenchAndAnEnglishDeviceEachReceiveTheirVariantOnTheStream() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await register("laptop-fr", of: alice, language: "fr-FR", in: session)
            try await register("laptop-en", of: alice, language: "en", in: session)
            let port = session.client.port!
            let french = StreamClient(port: port, user: alice, query: "?installationId=laptop-fr")
            let english = StreamClient(port: port, user: alice, query: "?installationId=laptop-en")
            try await french.waitUntilOpen()
            try await english.waitUntilOpen()
            let id = try await session.send(Self.winterSale, as: .admin)
            let frenchEvent = try #require(await french.next())
            #expect(
                StreamEvent(frenchEvent)?.body
                    == .rich(richId: id, richType: .text, richMessage: "Soldes", richTitle: "Soldes d’hiver", data: ["campaign": "w1"]))
            let englishEvent = try #require(await english.next())
            #expect(
                StreamEvent(englishEvent)?.body
                    == .rich(richId: id, richType: .text, richMessage: "Big sale", richTitle: "Winter sale", data: ["campaign": "w1"]))
            #expect(englishEvent.data.contains(#""data":{"campaign":"w1"}"#))
            french.close()
            english.close()
        }
    }

    @Test func aDirectDeviceGetsItsLanguagesButtonsAndTheLevelInItsRichEvent() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await register("laptop-fr", of: alice, language: "fr", in: session)
            let stream = StreamClient(port: session.client.port!, user: alice, query: "?installationId=laptop-fr")
            try await stream.waitUntilOpen()
            let id = try await session.send(
                #"""
                {"message":"Sale","richType":"text","audience":"topic:sale","interruptionLevel":"time-sensitive",
                 "actions":[{"id":"shop","label":"Shop","kind":"open","url":"https://shop.example/"},
                            {"id":"remind","label":"Remind me","kind":"http","url":"https://api.example/r?key=secret"}],
                 "localizations":{"fr":{"actions":[{"id":"remind","label":"Plus tard"}]}}}
                """#, as: .admin)
            let event = try #require(await stream.next())
            #expect(
                event.data
                    == #"{"actions":[{"id":"shop","kind":"open","label":"Shop","url":"https://shop.example/"},{"id":"remind","kind":"http","label":"Plus tard"}],"interruptionLevel":"time-sensitive","richId":"\#(id)","richMessage":"Sale","richType":"text"}"#
            )
            #expect(
                StreamEvent(event)?.body
                    == .rich(
                        richId: id, richType: .text, richMessage: "Sale",
                        actions: [
                            DeviceAction(id: "shop", label: "Shop", kind: .open, url: "https://shop.example/"),
                            DeviceAction(id: "remind", label: "Plus tard", kind: .http),
                        ], interruptionLevel: .timeSensitive))
            stream.close()
        }
    }

    @Test func theFeedInfoAndTextPayloadSpeakTheReadersAcceptLanguage() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await register("laptop", of: alice, language: nil, in: session)
            let id = try await session.send(Self.winterSale, as: .admin)
            let french: HTTPFields = [.acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.5"]
            let feed = try await session.request(.get, "/api/me/notifications", as: alice, headers: french).json()
            let item = try #require((feed["items"] as? [[String: Any]])?.first)
            #expect(item["message"] as? String == "Soldes")
            #expect(item["richTitle"] as? String == "Soldes d’hiver")
            #expect(item["data"] as? [String: String] == ["campaign": "w1"])
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: alice, headers: french).json()
            #expect(info["message"] as? String == "Soldes")
            #expect(info["language"] as? String == "fr")
            #expect((info["localizations"] as? [String: Any])?["fr"] != nil)
            #expect(info["category"] as? String == "richPush")
            let payload = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: french)
            #expect(payload.text == "Tout")
            let english = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.acceptLanguage: "en"])
            #expect(english.text == "All of it")
            let defaultInfo = try await session.request(.get, "/api/notifications/\(id)/info", as: alice).json()
            #expect(defaultInfo["message"] as? String == "Big sale")
            #expect(defaultInfo["title"] as? String == "Winter sale")
        }
    }

    @Test func infoShowsEveryVisibleFieldAsTheMarketerSentIt() async throws {
        try await TestGateway().run { session in
            let id = try await session.send(
                #"""
                {"message":"Sale","richType":"text","audience":"topic:sale","pushStyle":"alert","title":"Winter sale","sound":"chime.caf",
                 "badge":"unread","category":"SALE","threadId":"winter","data":{"campaign":"w1","deepLink":"shop://sale"}}
                """#, as: .admin)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            #expect(info["title"] as? String == "Winter sale")
            #expect(info["sound"] as? String == "chime.caf")
            #expect(info["badge"] as? String == "unread")
            #expect(info["category"] as? String == "SALE")
            #expect(info["threadId"] as? String == "winter")
            #expect(info["data"] as? [String: String] == ["campaign": "w1", "deepLink": "shop://sale"])
            let numbered = try await session.send(
                #"{"message":"Sale","richType":"text","audience":"topic:sale","pushStyle":"alert","badge":3}"#, as: .admin)
            #expect(try await session.request(.get, "/api/notifications/\(numbered)/info", as: .admin).json()["badge"] as? Int == 3)
        }
    }

    @Test func aTextNotificationWithoutATextServesItsMessage() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"Doors open at nine","richType":"text"}"#, as: alice)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).text == "Doors open at nine")
        }
    }

    @Test func aVariantThatWouldOverflowAPNsIsRefusedAtCreateNamingItsLanguageAndSize() async throws {
        try await TestGateway().run { session in
            let long = String(repeating: "é", count: 900)
            let data = (0..<3).map { #""k\#($0)":"\#(String(repeating: "x", count: 1000))""# }.joined(separator: ",")
            let json = #"{"message":"m","richType":"text","data":{\#(data)},"localizations":{"fr":{"message":"\#(long)"}}}"#
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: json)
            #expect(response.status == .unprocessableContent)
            let error = try response.error()
            #expect(error.code == "notification.tooLarge")
            #expect(error.message.contains("fr variant"))
            #expect(error.message.contains("bytes"))
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    /// A silent push carries its message once for both hubs, so FCM's 4000 bytes of data fill first; an alert carries
    /// it twice on APNs (in `aps.alert` and `richMessage`), so APNs's 4096 do.
    @Test(arguments: [
        ("alert", 400, "The push of the fr variant is 4097 bytes for APNs, which accepts 4096."),
        ("silent", 500, "The data of the fr variant are 4001 bytes for FCM, which accepts 4000."),
    ])
    func aVariantOneByteOverAHubsLimitIsRefusedAtCreateAndOneAtItIsAccepted(style: String, frenchLength: Int, refusal: String) async throws {
        try await TestGateway().run { session in
            let french = String(repeating: "é", count: frenchLength)
            let kilobyte = String(repeating: "k", count: 1000)
            func create(padding: Int) async throws -> (accepted: Bool, message: String?) {
                let data = #""a":"\#(kilobyte)","b":"\#(kilobyte)","pad":"\#(String(repeating: "x", count: padding))""#
                let json =
                    #"{"message":"m","richType":"text","pushStyle":"\#(style)","data":{\#(data)},"localizations":{"fr":{"message":"\#(french)"}}}"#
                let response = try await session.request(.post, "/api/notifications", as: .admin, json: json)
                if response.status == .unprocessableContent { return (false, try response.error().message) }
                #expect(response.status == .created)
                return (true, nil)
            }
            // The largest padding the gateway accepts, found by halving: one more byte is the first refused.
            var accepted = 0
            var refused = 1000
            try #require(try await create(padding: accepted).accepted)
            try #require(try await !create(padding: refused).accepted)
            while refused - accepted > 1 {
                let middle = (accepted + refused) / 2
                if try await create(padding: middle).accepted { accepted = middle } else { refused = middle }
            }
            let message = try await create(padding: refused).message
            #expect(message == refusal, "\(message ?? "accepted")")
        }
    }

    @Test(arguments: [
        (#""title":"","#, "notification.invalidTitle"),
        (#""sound":"default","#, "notification.invalidSound"),
        (#""pushStyle":"alert","sound":"bad sound","#, "notification.invalidSound"),
        (#""badge":100000,"#, "notification.invalidBadge"),
        (#""badge":"all","#, "request.invalidField"),
        (#""category":"has space","#, "notification.invalidCategory"),
        (#""threadId":"","#, "notification.invalidThreadId"),
        (#""data":{"aps":"x"},"#, "notification.invalidData"),
        (#""data":{"google.c":"x"},"#, "notification.invalidData"),
        (#""data":{"1st":"x"},"#, "notification.invalidData"),
        (#""data":{"k":"\#(String(repeating: "x", count: 1025))"},"#, "notification.invalidData"),
        (#""data":{\#((0..<21).map { #""k\#($0)":"v""# }.joined(separator: ","))},"#, "notification.invalidData"),
        (#""localizations":{"fr_FR":{"message":"x"}},"#, "notification.invalidLocalization"),
        (#""localizations":{"fr":{"url":"https://example.com"}},"#, "notification.invalidLocalization"),
        (#""localizations":{"fr":{"message":" "}},"#, "notification.invalidMessage"),
    ])
    func contentThatNoHubWouldTakeIs422AndStoresNothing(fields: String, code: String) async throws {
        try await TestGateway().run { session in
            let json = "{" + fields + #""message":"m","richType":"text","text":"x"}"#
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == code)
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func anInstallationsLanguageIsKeptAndMustBeATag() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let good = try await session.request(
                .put, "/api/installations/phone", as: alice, json: #"{"platform":"direct","pushChannel":"p","language":"pt-BR"}"#)
            #expect(try good.json()["language"] as? String == "pt-BR")
            let bad = try await session.request(
                .put, "/api/installations/phone", as: alice, json: #"{"platform":"direct","pushChannel":"p","language":"pt_BR"}"#)
            #expect(bad.status == .unprocessableContent)
            #expect(try bad.error().code == "installation.invalidLanguage")
        }
    }
}
