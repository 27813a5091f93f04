import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import Hummingbird
import HummingbirdTesting
import RichPushCore
import RichPushHubs
import RichPushServer
import TestSupport
import Testing

/// Buttons on a notification: how they are checked, shown to each reader, reported and counted, and how the gateway
/// runs an `http` action for a device.
@Suite("Actions")
struct ActionTests {
    static let buttons = #"""
        [{"id":"shop","label":"Shop now","kind":"open","url":"https://shop.example/sale"},
         {"id":"remind","label":"Remind me tomorrow","kind":"http","url":"https://api.example/remind?key=secret","body":"{\"in\":\"1d\"}"},
         {"id":"later","label":"Not now","kind":"dismiss"}]
        """#

    /// A sale with `actions` (the three buttons unless given) to Alice's laptop, sent and delivered; its id.
    func sendSale(_ session: Session, to alice: Credentials, actions: String = buttons, extra: String = "") async throws -> Int64 {
        try await session.register("laptop", of: alice)
        let id = try await session.send(
            #"{"message":"Sale","richType":"text","audience":"username:alice","actions":\#(actions)\#(extra)}"#, as: .admin)
        _ = try await session.waitForState("delivered", of: id)
        return id
    }

    func feedItem(_ id: Int64, of user: Credentials, in session: Session, headers: HTTPFields = [:]) async throws -> [String: Any] {
        let feed = try await session.request(.get, "/api/me/notifications", as: user, headers: headers).json()
        return try #require((feed["items"] as? [[String: Any]])?.first { $0["id"] as? Int64 == id })
    }

    func delivery(of id: Int64, in session: Session) async throws -> [String: Any] {
        let items = try await session.request(.get, "/api/notifications/\(id)/deliveries", as: .admin).json()["items"] as? [[String: Any]]
        return try #require(items?.first)
    }

    @Test(arguments: [
        #"[{"id":"a","label":"A","kind":"dismiss"},{"id":"b","label":"B","kind":"dismiss"},{"id":"c","label":"C","kind":"dismiss"},{"id":"d","label":"D","kind":"dismiss"}]"#,
        #"[{"id":"not ok","label":"A","kind":"dismiss"}]"#,
        #"[{"id":"a","label":"A","kind":"dismiss"},{"id":"a","label":"B","kind":"dismiss"}]"#,
        #"[{"id":"a","label":" ","kind":"dismiss"}]"#,
        #"[{"id":"a","label":"12345678901234567890123456789012345678901","kind":"dismiss"}]"#,
        #"[{"id":"a","label":"A","kind":"open"}]"#,
        #"[{"id":"a","label":"A","kind":"open","url":"http://shop.example/"}]"#,
        #"[{"id":"a","label":"A","kind":"open","url":"https://shop.example/","method":"POST"}]"#,
        #"[{"id":"a","label":"A","kind":"http","url":"https://api.example/","method":"GET","body":"x"}]"#,
        #"[{"id":"a","label":"A","kind":"dismiss","url":"https://shop.example/"}]"#,
        #"[{"id":"a","label":"A","kind":"call"}]"#,
        #"[{"id":"a","label":"A","kind":"http","url":"https://api.example/","method":"PUT"}]"#,
    ])
    func anIncompleteOrExcessiveButtonIsRefusedAndNothingIsStored(actions: String) async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(
                .post, "/api/notifications", as: .admin,
                json: #"{"message":"Sale","richType":"text","audience":"topic:sale","actions":\#(actions)}"#)
            #expect(answer.status == .unprocessableContent)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == "notification.invalidActions")
            let listed = try await session.request(.get, "/api/notifications", as: .admin).json()["items"] as? [Any]
            #expect(listed?.isEmpty == true)
        }
    }

    @Test func aTemplateWithAButtonANotificationWouldRefuseIsRefusedWhenStored() async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(
                .post, "/api/templates", as: .admin,
                json: #"{"name":"sale","message":"m","richType":"text","actions":[{"id":"a","label":"A","kind":"open","url":"http://x.example/"}]}"#)
            #expect(answer.status == .unprocessableContent)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == "notification.invalidActions")
        }
    }

    @Test func anHTTPActionsBodyOverOneKilobyteIsRefused() async throws {
        try await TestGateway().run { session in
            let body = String(repeating: "x", count: 1025)
            let answer = try await session.request(
                .post, "/api/notifications", as: .admin,
                json:
                    #"{"message":"m","richType":"text","actions":[{"id":"a","label":"A","kind":"http","url":"https://api.example/","body":"\#(body)"}]}"#
            )
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == "notification.invalidActions")
        }
    }

    @Test func aLanguagesLabelMustNameOneOfTheNotificationsButtons() async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(
                .post, "/api/notifications", as: .admin,
                json:
                    #"{"message":"m","richType":"text","actions":\#(Self.buttons),"localizations":{"fr":{"actions":[{"id":"buy","label":"Acheter"}]}}}"#
            )
            #expect(answer.status == .unprocessableContent)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == "notification.invalidActions")
        }
    }

    @Test(arguments: [
        (#""interruptionLevel":"urgent""#, "notification.invalidInterruptionLevel"),
        (#""relevanceScore":1.5"#, "notification.invalidRelevanceScore"),
        (#""channel":"no spaces""#, "notification.invalidChannel"),
    ])
    func anInterruptionOutsideWhatHubsTakeIsRefused(field: String, code: String) async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(
                .post, "/api/notifications", as: .admin, json: #"{"message":"m","richType":"text",\#(field)}"#)
            #expect(answer.status == .unprocessableContent)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == code)
        }
    }

    @Test func criticalAlertsAreRefusedUnlessTheOperatorAllowsThem() async throws {
        try await TestGateway().run { session in
            let answer = try await session.request(
                .post, "/api/notifications", as: .admin, json: #"{"message":"Evacuate","richType":"text","interruptionLevel":"critical"}"#)
            #expect(answer.status == .forbidden)
            #expect(String(buffer: answer.body).contains("--allow-critical-alerts"))
        }
    }

    @Test func whereTheOperatorAllowsCriticalAlertsOnlyAdminsSendThem() async throws {
        try await TestGateway { $0.allowsCriticalAlerts = true }.run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let critical = #"{"message":"Evacuate","richType":"text","audience":"topic:site","interruptionLevel":"critical"}"#
            #expect(try await session.request(.post, "/api/notifications", as: mark, json: critical).status == .forbidden)
            let answer = try await session.request(.post, "/api/notifications", as: .admin, json: critical)
            #expect(answer.status == .created)
            #expect(try answer.json()["interruptionLevel"] as? String == "critical")
        }
    }

    @Test func theFeedShowsTheButtonsInTheReadersLanguageAndNeverAnHTTPActionsRequest() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await sendSale(
                session, to: alice, extra: #","interruptionLevel":"active","localizations":{"fr":{"actions":[{"id":"shop","label":"Acheter"}]}}"#)
            let item = try await feedItem(id, of: alice, in: session, headers: [.acceptLanguage: "fr"])
            let actions = try #require(item["actions"] as? [[String: String]])
            #expect(
                actions == [
                    ["id": "shop", "label": "Acheter", "kind": "open", "url": "https://shop.example/sale"],
                    ["id": "remind", "label": "Remind me tomorrow", "kind": "http"], ["id": "later", "label": "Not now", "kind": "dismiss"],
                ])
            #expect(item["interruptionLevel"] as? String == "active")
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: alice).json()
            #expect(!String(describing: info).contains("secret"))
            let full = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            #expect((full["actions"] as? [[String: String]])?[1]["url"] == "https://api.example/remind?key=secret")
        }
    }

    @Test func pressingAnOpenButtonIsRecordedWithItsIdInTheFeedTheStatusAndTheExport() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await sendSale(session, to: alice)
            let answer = try await session.request(
                .patch, "/api/me/notifications/\(id)", as: alice, json: #"{"readState":"read","userActionState":"activated","action":"shop"}"#)
            #expect(answer.status == .ok)
            #expect(try answer.json()["action"] as? String == "shop")
            #expect(try await feedItem(id, of: alice, in: session)["action"] as? String == "shop")
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            #expect(status["opened"] as? Int64 == 1)
            #expect(status["actions"] as? [String: Int64] == ["shop": 1])
            #expect(try await delivery(of: id, in: session)["action"] as? String == "shop")
            let csv = try await session.request(.get, "/api/notifications/\(id)/deliveries?format=csv", as: .admin).text
            let lines = csv.split(separator: "\r\n")
            #expect(lines.first?.hasSuffix(",action,actionStatus") == true)
            #expect(lines.dropFirst().first?.hasSuffix(",shop,") == true)
        }
    }

    @Test func theOpenedWebhookNamesTheButtonPressed() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        try await TestGateway { $0.hubs.allowPrivatePushEndpoints = true }.run { session in
            let hook = try await session.request(
                .post, "/api/webhooks", as: .admin, json: #"{"url":"\#(receiver.url)","events":["notification.opened"]}"#)
            #expect(hook.status == .created)
            let alice = try await session.createUser("alice")
            let id = try await sendSale(session, to: alice)
            _ = try await session.request(
                .patch, "/api/me/notifications/\(id)", as: alice, json: #"{"userActionState":"activated","action":"shop"}"#)
            #expect(await eventually { !receiver.events.isEmpty })
            let event = try #require(receiver.events.first)
            #expect(event["type"] as? String == "notification.opened")
            let data = try #require(event["data"] as? [String: Any])
            #expect(data["action"] as? String == "shop")
            #expect(data["notificationId"] as? Int64 == id)
        }
    }

    @Test func aDismissButtonIsReportedAsADismissalWithItsId() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await sendSale(session, to: alice)
            let answer = try await session.request(
                .patch, "/api/me/notifications/\(id)", as: alice, json: #"{"userActionState":"dismissed","action":"later"}"#)
            #expect(answer.status == .ok)
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            #expect(status["dismissed"] as? Int64 == 1)
            #expect(status["actions"] as? [String: Int64] == ["later": 1])
        }
    }

    @Test(arguments: [
        #"{"userActionState":"activated","action":"buy"}"#, #"{"userActionState":"dismissed","action":"shop"}"#,
        #"{"userActionState":"activated","action":"remind"}"#, #"{"readState":"read","action":"shop"}"#,
    ])
    func aButtonTheNotificationHasNotOrReportedWithTheWrongStateIsRefused(body: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await sendSale(session, to: alice)
            let answer = try await session.request(.patch, "/api/me/notifications/\(id)", as: alice, json: body)
            #expect(answer.status == .unprocessableContent)
            #expect((try answer.json()["error"] as? [String: Any])?["code"] as? String == "feed.invalidAction")
            #expect(try await feedItem(id, of: alice, in: session)["action"] == nil)
        }
    }

    @Test func eachVariantsFunnelCountsTheButtonsItsUsersPressed() async throws {
        try await TestGateway().run { session in
            let users = [try await session.createUser("alice"), try await session.createUser("bob")]
            for user in users { try await session.register("\(user.username)-laptop", of: user, tags: ["topic:sale"]) }
            let id = try await session.send(
                #"""
                {"message":"Sale","richType":"text","audience":"topic:sale","actions":\#(Self.buttons),
                 "variants":[{"name":"A","weight":50},{"name":"B","weight":50,"actions":[{"id":"shop","label":"Buy","kind":"open","url":"https://shop.example/b"}]}]}
                """#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            for user in users {
                let answer = try await session.request(
                    .patch, "/api/me/notifications/\(id)", as: user, json: #"{"userActionState":"activated","action":"shop"}"#)
                #expect(answer.status == .ok)
            }
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            let funnels = try #require(status["variants"] as? [[String: Any]])
            let pressed = funnels.reduce(0) { $0 + (($1["actions"] as? [String: Int64])?["shop"] ?? 0) }
            #expect(pressed == 2)
            #expect(funnels.allSatisfy { ($0["actions"] as? [String: Int64] ?? [:]).values.reduce(0, +) == $0["opened"] as? Int64 })
        }
    }

    @Test func anHTTPActionIsMadeOnceByTheGatewayWithItsBodyAndItsAnswersStatusIsRecorded() async throws {
        let certificates = try HTTPSTests.Certificates()
        let authority = certificates.authority
        let target = try await WebhookReceiver.start(answering: [201], tls: authority)
        defer { Task { await target.stop() } }
        try await TestGateway {
            $0.hubs.allowPrivatePushEndpoints = true
            $0.hubs.tlsCAFile = authority.caFile
        }.run { session in
            let alice = try await session.createUser("alice")
            let id = try await sendSale(
                session, to: alice,
                actions: #"[{"id":"remind","label":"Remind me tomorrow","kind":"http","url":"\#(target.url)?key=secret","body":"{\"in\":\"1d\"}"}]"#)
            let answer = try await session.request(.post, "/api/me/notifications/\(id)/actions/remind", as: alice)
            #expect(answer.status == .accepted)
            #expect(try answer.json()["userActionState"] as? String == "activated")
            #expect(try answer.json()["readState"] as? String == "read")
            #expect(try await eventually { try await delivery(of: id, in: session)["actionStatus"] as? Int64 == 201 })
            let request = try #require(target.deliveries.first)
            #expect(request.method == "POST")
            #expect(request.body == #"{"in":"1d"}"#)
            #expect(request.headers["content-type"] == "application/json")
            // A second press records the press but makes no request: a run would have set the status aside.
            #expect(try await session.request(.post, "/api/me/notifications/\(id)/actions/remind", as: alice).status == .accepted)
            #expect(try await delivery(of: id, in: session)["actionStatus"] as? Int64 == 201)
            #expect(target.deliveries.count == 1)
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            #expect(status["actions"] as? [String: Int64] == ["remind": 1])
            #expect(try await session.request(.get, "/metrics").text.contains(#"richpush_action_requests_total{answer="2xx"}"#))
        }
    }

    @Test func anHTTPActionToAnAddressOnTheGatewaysOwnNetworkIsNotMadeAndRecordedUnanswered() async throws {
        let certificates = try HTTPSTests.Certificates()
        let authority = certificates.authority
        let target = try await WebhookReceiver.start(tls: authority)
        defer { Task { await target.stop() } }
        try await TestGateway { $0.hubs.tlsCAFile = authority.caFile }.run { session in
            let alice = try await session.createUser("alice")
            let id = try await sendSale(
                session, to: alice, actions: #"[{"id":"remind","label":"Remind me","kind":"http","url":"\#(target.url)"}]"#)
            #expect(try await session.request(.post, "/api/me/notifications/\(id)/actions/remind", as: alice).status == .accepted)
            #expect(try await eventually { try await delivery(of: id, in: session)["actionStatus"] as? Int64 == 0 })
            #expect(target.deliveries.isEmpty)
        }
    }

    @Test func onlyAnHTTPActionIsRunThroughTheActionsPath() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await sendSale(session, to: alice)
            let open = try await session.request(.post, "/api/me/notifications/\(id)/actions/shop", as: alice)
            #expect(open.status == .unprocessableContent)
            #expect((try open.json()["error"] as? [String: Any])?["code"] as? String == "action.notHTTP")
            let unknown = try await session.request(.post, "/api/me/notifications/\(id)/actions/buy", as: alice)
            #expect(unknown.status == .notFound)
            #expect((try unknown.json()["error"] as? [String: Any])?["code"] as? String == "action.notFound")
            let bob = try await session.createUser("bob")
            #expect(try await session.request(.post, "/api/me/notifications/\(id)/actions/remind", as: bob).status == .notFound)
        }
    }
}
