import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@Suite("Fetching the payload")
struct PayloadTests {
    @Test func anImagePayloadHasAnEntityTagAndPrivateCaching() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(
                #"{"message":"m","richType":"img","imageId":\#(try await session.upload(as: .admin)),"audience":"username:alice"}"#, as: .admin)
            let response = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "private")
            let tag = try #require(response.headers[.eTag])
            #expect(tag.hasPrefix("\"") && tag.count == 66)
            let again = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            let weak = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.ifNoneMatch: "\"x\", W/\(tag)"])
            #expect(weak.status == .notModified)
        }
    }

    @Test func headAnswersTheHeadersWithoutTheBytes() async throws {
        try await TestGateway().run { session in
            let id = try await session.send(#"{"message":"m","richType":"img","imageId":\#(try await session.upload(as: .admin))}"#, as: .admin)
            let response = try await session.request(.head, "/api/notifications/\(id)", as: .admin)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/png")
            #expect(response.body.readableBytes == 0)
        }
    }

    @Test func aUrlPayloadRedirectsAndATextPayloadIsPlainText() async throws {
        try await TestGateway().run { session in
            let url = try await session.send(#"{"message":"m","richType":"url","url":"https://example.com/sale?a=1"}"#, as: .admin)
            let redirect = try await session.request(.get, "/api/notifications/\(url)", as: .admin)
            #expect(redirect.status == .found)
            #expect(redirect.headers[.location] == "https://example.com/sale?a=1")
            let text = try await session.send(#"{"message":"m","richType":"text","text":"Grüße\nfrom richpush"}"#, as: .admin)
            let plain = try await session.request(.get, "/api/notifications/\(text)", as: .admin)
            #expect(plain.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(plain.text == "Grüße\nfrom richpush")
        }
    }

    @Test func membersOutsideTheAudienceGet404() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let eve = try await session.createUser("eve")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"secret","audience":"username:alice"}"#, as: .admin)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok)
            let response = try await session.request(.get, "/api/notifications/\(id)", as: eve)
            #expect(response.status == .notFound)
            #expect(try await session.request(.get, "/api/notifications/\(id)/info", as: eve).status == .notFound)
        }
    }

    @Test func aRecalledNotificationIsGone() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            #expect(try await session.request(.delete, "/api/notifications/\(id)", as: .admin).status == .noContent)
            let response = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(response.status == .gone)
            #expect(try response.error().code == "notification.gone")
        }
    }

    @Test func anExpiredNotificationIsGone() async throws {
        try await TestGateway().run { session in
            let inAnHour = session.clock.now + 3600
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"x","expiresAt":"\#(Timestamp.format(inAnHour))"}"#, as: .admin)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: .admin).status == .ok)
            session.clock.advance(by: 3600)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: .admin).status == .gone)
        }
    }

    @Test func theSignedLinkOfInfoWorksWithoutCredentials() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"signed","audience":"username:alice"}"#, as: .admin)
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: alice).json()
            let link = try #require(info["payloadUrl"] as? String)
            #expect(link.hasPrefix("/api/notifications/\(id)?exp="))
            let response = try await session.request(.get, link)
            #expect(response.status == .ok)
            #expect(response.text == "signed")
        }
    }

    @Test(arguments: ["sig=AAAA&exp=99999999999", "exp=1000&sig=", "sig=x"])
    func aForgedOrExpiredSignedLinkIs403(query: String) async throws {
        try await TestGateway().run { session in
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x"}"#, as: .admin)
            let response = try await session.request(.get, "/api/notifications/\(id)?\(query)")
            #expect(response.status == .forbidden)
        }
    }

    @Test func aSignatureForOneIdDoesNotOpenAnother() async throws {
        try await TestGateway().run { session in
            let first = try await session.send(#"{"message":"m","richType":"text","text":"x"}"#, as: .admin)
            let second = try await session.send(#"{"message":"m","richType":"text","text":"y"}"#, as: .admin)
            let link = try #require(try await session.request(.get, "/api/notifications/\(first)/info", as: .admin).json()["payloadUrl"] as? String)
            let forged = link.replacingOccurrences(of: "/api/notifications/\(first)?", with: "/api/notifications/\(second)?")
            #expect(try await session.request(.get, forged).status == .forbidden)
        }
    }

    @Test func theFetchOfARecipientIsCountedOnceInTheStatus() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            for _ in 0..<3 { _ = try await session.request(.get, "/api/notifications/\(id)", as: alice) }
            _ = try await session.request(.get, "/api/notifications/\(id)", as: .admin)
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["fetched"] as? Int64 == 1)
        }
    }

    @Test func aHeadOfThePayloadIsNoFetch() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"x","audience":"username:alice || username:bob"}"#, as: .admin)
            #expect(try await session.request(.head, "/api/notifications/\(id)", as: alice).status == .ok)
            _ = try await session.request(.get, "/api/notifications/\(id)", as: bob)
            // Fetches are recorded in the order they come: bob's counted means alice's HEAD was seen before it.
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["fetched"] as? Int64 == 1)
        }
    }

    @Test func aBurstOfFirstFetchesIsCountedWhole() async throws {
        try await TestGateway().run { session in
            var readers: [Credentials] = []
            for index in 0..<12 { readers.append(try await session.createUser("reader\(index)")) }
            let audience = readers.map { "username:\($0.username)" }.joined(separator: " || ")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"\#(audience)"}"#, as: .admin)
            try await withThrowingTaskGroup { group in
                for reader in readers {
                    group.addTask { try await session.request(.get, "/api/notifications/\(id)", as: reader).status }
                }
                for try await status in group { #expect(status == .ok) }
            }
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["fetched"] as? Int64 == 12)
        }
    }

    @Test(arguments: ["0", "-1", "abc", "99999999999999999999999", "1.5", "%20"])
    func idsThatAreNotPositiveIntegersAre400(id: String) async throws {
        try await TestGateway().run { session in
            for path in ["/api/notifications/\(id)", "/api/notifications/\(id)/info", "/api/notifications/\(id)/status"] {
                let response = try await session.request(.get, path, as: .admin)
                #expect(response.status == .badRequest, "\(path)")
                #expect(try response.error().code == "request.invalidId")
            }
        }
    }

    @Test func anIdThatDoesNotExistIs404() async throws {
        try await TestGateway().run { session in
            let fetched = try await session.request(.get, "/api/notifications/4242", as: .admin)
            let deleted = try await session.request(.delete, "/api/notifications/4242", as: .admin)
            #expect(fetched.status == .notFound)
            #expect(deleted.status == .notFound)
        }
    }
}
