import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@Suite("Counting an audience")
struct AudienceTests {
    @Test func itCountsTheLiveInstallationsAndTheDistinctPeopleAnExpressionReaches() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("alice-laptop", of: alice, tags: ["topic:sale"])
            try await session.register("alice-phone", of: alice, platform: .apns, tags: ["topic:sale"])
            try await session.register("bob-laptop", of: bob, tags: ["topic:sale", "lang:fr"])
            try await session.register("bob-desktop", of: bob)
            let response = try await session.request(.get, "/api/audiences/count?expression=topic:sale%20%26%26%20!lang:fr", as: mark)
            #expect(response.status == .ok)
            let count = try response.json()
            #expect(count["installations"] as? Int64 == 2)
            #expect(count["recipients"] as? Int64 == 1)
            #expect(count["expression"] as? String == "topic:sale && !lang:fr")
            let platforms = try #require(count["platforms"] as? [String: Any])
            #expect(platforms["direct"] as? Int64 == 1)
            #expect(platforms["apns"] as? Int64 == 1)
            #expect(platforms["fcm"] as? Int64 == 0)
        }
    }

    @Test func aNamedUserWithoutDevicesIsARecipientButNoInstallation() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.createUser("carol")
            let count = try await session.request(.get, "/api/audiences/count?expression=username:carol", as: mark).json()
            #expect(count["installations"] as? Int64 == 0)
            #expect(count["recipients"] as? Int64 == 1)
        }
    }

    @Test func theCountIsWhatANotificationToTheSameAudienceTargets() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            for (index, tags) in [["topic:sale"], ["topic:news"], ["topic:sale", "lang:fr"], [], ["lang:de"]].enumerated() {
                let user = try await session.createUser("user\(index)")
                try await session.register("device\(index)", of: user, tags: tags)
            }
            let expression = "(topic:sale || topic:news) && !lang:fr || lang:de"
            let encoded = try #require(expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let count = try await session.request(.get, "/api/audiences/count?expression=\(encoded)", as: mark).json()
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"\#(expression)"}"#, as: mark)
            let status = try await session.waitForState("delivered", of: id)
            #expect(count["installations"] as? Int64 == 3)
            #expect(status["targeted"] as? Int64 == count["installations"] as? Int64)
        }
    }

    @Test func aMalformedExpressionIsA400WithTheParsersSentence() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(.get, "/api/audiences/count?expression=topic:sale%20%26%26", as: mark)
            #expect(response.status == .badRequest)
            let error = try response.error()
            #expect(error.code == "audience.invalid")
            #expect(
                error.message == "The audience is not a valid tag expression: expected a tag, '!' or '(' but the expression ended at character 14.")
        }
    }

    @Test func aMissingExpressionIsA400() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(.get, "/api/audiences/count", as: mark)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "audience.missing")
        }
    }

    @Test func aMemberMayNotCountAudiences() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(.get, "/api/audiences/count?expression=username:alice", as: alice)
            #expect(response.status == .forbidden)
            #expect(try response.error().message == "The member role may not count audiences.")
        }
    }

    @Test func countingRequiresCredentials() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/audiences/count?expression=topic:sale")
            #expect(response.status == .unauthorized)
        }
    }
}
