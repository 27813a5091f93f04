import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import RichPushCore
import TestSupport
import Testing

@Suite("Creating rich notifications")
struct NotificationTests {
    @Test func aPostWithoutABodySendsTheBundledImageToTheCaller() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let response = try await session.request(.post, "/api/notifications", as: alice)
            #expect(response.status == .ok)
            let notification = try response.json()
            #expect(notification["message"] as? String == "Check this image out!")
            #expect(notification["richType"] as? String == "img")
            #expect(notification["audience"] as? String == "username:alice")
            #expect(notification["pushStyle"] as? String == "silent")
            let id = try #require(notification["id"] as? Int64)
            #expect(response.headers[.location] == "/api/notifications/\(id)")
            let payload = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(payload.status == .ok)
            #expect(payload.headers[.contentType] == "image/png")
            #expect(Data(buffer: payload.body) == (try Data(contentsOf: repositoryRoot.appendingPathComponent("img/logo.png"))))
        }
    }

    @Test func aMarketerAddressesAnAudienceByTagExpression() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("alice-laptop", of: alice, tags: ["topic:sale"])
            try await session.register("bob-laptop", of: bob, tags: ["topic:sale", "lang:fr"])
            let imageId = try await session.upload(as: mark)
            let id = try await session.send(
                #"{"message":"Sale!","richType":"img","imageId":\#(imageId),"audience":"topic:sale && !lang:fr"}"#, as: mark)
            let status = try await session.waitForState("delivered", of: id)
            #expect(status["targeted"] as? Int64 == 1)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: bob).status == .notFound)
        }
    }

    @Test func theSameIdempotencyKeyReturnsTheFirstNotificationWith200() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let json = #"{"message":"Once","richType":"text","text":"hi","audience":"topic:x","idempotencyKey":"k-1"}"#
            let first = try await session.request(.post, "/api/notifications", as: mark, json: json)
            let second = try await session.request(.post, "/api/notifications", as: mark, json: json)
            #expect(first.status == .created)
            #expect(second.status == .ok)
            #expect(try first.json()["id"] as? Int64 == second.json()["id"] as? Int64)
        }
    }

    @Test func aMemberMayAddressOnlyItself() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let own = try await session.request(
                .post, "/api/notifications", as: alice, json: #"{"message":"Note","richType":"text","text":"x","audience":"username:alice"}"#)
            #expect(own.status == .created)
            for audience in ["username:bob", "username:alice || username:bob", "topic:sale"] {
                let response = try await session.request(
                    .post, "/api/notifications", as: alice, json: #"{"message":"Hi","richType":"text","text":"x","audience":"\#(audience)"}"#)
                #expect(response.status == .forbidden)
            }
        }
    }

    @Test func aMemberCannotReadAMarketersUnsentImageBySendingItToItself() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let eve = try await session.createUser("eve")
            let imageId = try await session.upload(as: mark)
            let peek = try await session.request(
                .post, "/api/notifications", as: eve, json: #"{"message":"peek","richType":"img","imageId":\#(imageId)}"#)
            #expect(peek.status == .forbidden)
            #expect(try peek.error().code == "auth.forbidden")
            let listed = try await session.request(.get, "/api/notifications?limit=100", as: mark).json()["items"] as? [Any]
            #expect(listed?.isEmpty == true)
        }
    }

    @Test(arguments: ["a &&", "(a || b", "a & b", "", "a b", "x$y"])
    func aMalformedAudienceIs400(audience: String) async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/notifications", as: mark, json: #"{"message":"Hi","richType":"text","text":"x","audience":"\#(audience)"}"#)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "audience.invalid")
        }
    }

    @Test func invalidJSONIs400() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: #"{"message": "unterminated"#)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "request.invalidJSON")
        }
    }

    @Test(arguments: [
        (#"{"richType":"text","text":"x"}"#, "notification.invalidMessage"),
        (#"{"message":"  ","richType":"text","text":"x"}"#, "notification.invalidMessage"),
        (#"{"message":"m","richType":"gif"}"#, "notification.invalidRichType"),
        (#"{"message":"m","richType":"img"}"#, "notification.missingImage"),
        (#"{"message":"m","richType":"img","imageId":999}"#, "image.notFound"),
        (#"{"message":"m","richType":"url","url":"javascript:alert(1)"}"#, "notification.invalidURL"),
        (#"{"message":"m","richType":"url","url":"/relative"}"#, "notification.invalidURL"),
        (#"{"message":"m","richType":"text","text":""}"#, "notification.invalidText"),
        (#"{"message":"m","richType":"text","text":"x","deliverAt":"tomorrow"}"#, "notification.invalidTime"),
        (#"{"message":"m","richType":"text","text":"x","expiresAt":"2001-01-01T00:00:00Z"}"#, "notification.invalidExpiry"),
        (
            #"{"message":"m","richType":"text","text":"x","deliverAt":"2999-01-02T00:00:00Z","expiresAt":"2999-01-01T00:00:00Z"}"#,
            "notification.invalidExpiry"
        ),
        (#"{"message":"m","richType":"text","text":"x","pushStyle":"loud"}"#, "notification.invalidPushStyle"),
        (#"{"message":"m","richType":"text","text":"x","idempotencyKey":""}"#, "notification.invalidIdempotencyKey"),
    ])
    func invalidNotificationsAre422AndStoreNothing(json: String, code: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == code)
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aBodyDeclaredAsSomethingOtherThanJSONIs415AndStoresNothing() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(
                .post, "/api/notifications", as: .admin, json: #"{"message":"m","richType":"text","text":"x"}"#,
                headers: [.contentType: "text/xml"])
            #expect(response.status == .unsupportedMediaType)
            #expect(try response.error().code == "request.unsupportedMediaType")
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aJSONBodyOverTheLimitIs413AndStoresNothing() async throws {
        try await TestGateway().run { session in
            let message = String(repeating: "a", count: 2 * 1024 * 1024)
            let response = try await session.request(
                .post, "/api/notifications", as: .admin, json: #"{"message":"\#(message)","richType":"text","text":"x"}"#)
            #expect(response.status == .contentTooLarge)
            #expect(try response.error().code == "request.tooLarge")
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aMessageThatWouldOverflowTheAPNsPayloadIs422() async throws {
        try await TestGateway().run { session in
            let message = String(repeating: "😀", count: 1000)
            let response = try await session.request(
                .post, "/api/notifications", as: .admin, json: #"{"message":"\#(message)","richType":"text","text":"x"}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "notification.tooLarge")
        }
    }

    @Test func aDeliverAtInThePastMeansNow() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"x","audience":"username:alice","deliverAt":"2001-01-01T00:00:00+02:00"}"#, as: .admin)
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 1)
        }
    }

    @Test func aFutureDeliverAtIsScheduled() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"x","audience":"username:alice","deliverAt":"2999-01-01T00:00:00Z"}"#, as: .admin)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            #expect(info["state"] as? String == "scheduled")
            #expect(info["deliverAt"] as? String == "2999-01-01T00:00:00.000Z")
            let feed = try await session.request(.get, "/api/me/notifications", as: alice).json()
            #expect((feed["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aScheduledNotificationIsReleasedAndDeliveredWhenItsTimeComes() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let inAnHour = session.clock.now + 3600
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"x","audience":"username:alice","deliverAt":"\#(Timestamp.format(inAnHour))"}"#,
                as: .admin)
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["state"] as? String == "scheduled")
            session.clock.advance(by: 3600)
            #expect(try await session.waitForState("delivered", of: id)["state"] as? String == "delivered")
            let feed = try await session.request(.get, "/api/me/notifications", as: alice).json()
            #expect((feed["items"] as? [[String: Any]])?.first?["id"] as? Int64 == id)
        }
    }

    @Test func installationsOfUnconfiguredHubsFailWithAClearReason() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("iphone", of: alice, platform: .apns)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let status = try await session.waitForState("failed", of: id)
            #expect(status["state"] as? String == "failed")
            let error = try #require((status["errors"] as? [[String: Any]])?.first)
            #expect(error["code"] as? String == "hub.notConfigured")
            #expect(error["installationId"] as? String == "iphone")
        }
    }
}
