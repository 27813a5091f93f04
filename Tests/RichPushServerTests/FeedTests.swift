import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Feed and state")
struct FeedTests {
    @Test func theFeedListsNotificationsNewestFirstWithTheirState() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let first = try await session.send(#"{"message":"first","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let second = try await session.send(
                #"{"message":"second","richType":"url","url":"https://example.com","audience":"username:alice"}"#, as: .admin)
            let feed = try await session.request(.get, "/api/me/notifications", as: alice).json()
            let items = try #require(feed["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["id"] as? Int64 } == [second, first])
            #expect(items[0]["richType"] as? String == "url")
            #expect(items[0]["readState"] as? String == "unread")
            #expect(items[0]["userActionState"] as? String == "noInteraction")
            #expect(feed["cursor"] is String)
        }
    }

    @Test func patchingStateChangesTheFeedAndSinceReturnsOnlyTheChange() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let first = try await session.send(#"{"message":"a","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.send(#"{"message":"b","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let cursor = try #require(try await session.request(.get, "/api/me/notifications", as: alice).json()["cursor"] as? String)
            let patch = try await session.request(
                .patch, "/api/me/notifications/\(first)", as: alice, json: #"{"userActionState":"activated","readState":"read"}"#)
            #expect(patch.status == .ok)
            #expect(try patch.json()["readState"] as? String == "read")
            let changes = try await session.request(.get, "/api/me/notifications?since=\(cursor)", as: alice).json()
            let items = try #require(changes["items"] as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["id"] as? Int64 == first)
            #expect(items.first?["userActionState"] as? String == "activated")
        }
    }

    @Test func openedAndDismissedCountDistinctUsersInTheStatus() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice || username:bob"}"#, as: .admin)
            _ = try await session.request(.patch, "/api/me/notifications/\(id)", as: alice, json: #"{"userActionState":"activated"}"#)
            _ = try await session.request(.patch, "/api/me/notifications/\(id)", as: bob, json: #"{"userActionState":"dismissed"}"#)
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            #expect(status["opened"] as? Int64 == 1)
            #expect(status["dismissed"] as? Int64 == 1)
        }
    }

    @Test func aReceiptCountsDisplayedInstallationsOnce() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let body = #"{"installationId":"laptop","event":"displayed"}"#
            #expect(try await session.request(.post, "/api/me/notifications/\(id)/receipts", as: alice, json: body).status == .created)
            #expect(try await session.request(.post, "/api/me/notifications/\(id)/receipts", as: alice, json: body).status == .ok)
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["displayed"] as? Int64 == 1)
        }
    }

    @Test func stateOfANotificationOutsideTheFeedIs404() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"topic:other"}"#, as: .admin)
            let response = try await session.request(.patch, "/api/me/notifications/\(id)", as: alice, json: #"{"readState":"read"}"#)
            #expect(response.status == .notFound)
        }
    }

    @Test(arguments: [#"{"readState":"seen"}"#, #"{"userActionState":"snoozed"}"#, #"{}"#])
    func invalidStatesAre422(json: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let response = try await session.request(.patch, "/api/me/notifications/\(id)", as: alice, json: json)
            #expect(response.status == .unprocessableContent)
        }
    }

    @Test func aReceiptFromAnotherUsersInstallationIs422() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("bob-laptop", of: bob)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let response = try await session.request(
                .post, "/api/me/notifications/\(id)/receipts", as: alice, json: #"{"installationId":"bob-laptop","event":"displayed"}"#)
            #expect(response.status == .unprocessableContent)
        }
    }
}
