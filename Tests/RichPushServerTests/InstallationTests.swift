import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import RichPushCore
import RichPushServer
import Testing

@Suite("Installations")
struct InstallationTests {
    @Test func registeringCreatesThenUpdates() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let json = #"{"platform":"apns","pushChannel":"a1b2","tags":["topic:sale"],"appVersion":"2.1","timeZone":"Europe/Berlin"}"#
            let created = try await session.request(.put, "/api/installations/iphone", as: alice, json: json)
            #expect(created.status == .created)
            let installation = try created.json()
            #expect(installation["owner"] as? String == "alice")
            #expect(
                installation["tags"] as? [String] == [
                    "appversion:2.1", "installation:iphone", "platform:apns", "timezone:Europe/Berlin", "topic:sale", "username:alice",
                ])
            #expect(installation["appVersion"] as? String == "2.1")
            let updated = try await session.request(.put, "/api/installations/iphone", as: alice, json: json)
            #expect(updated.status == .ok)
        }
    }

    @Test func theOwnerAndAdminsSeeAnInstallationOthersGet404() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("laptop", of: alice)
            #expect(try await session.request(.get, "/api/installations/laptop", as: alice).status == .ok)
            #expect(try await session.request(.get, "/api/installations/laptop", as: .admin).status == .ok)
            #expect(try await session.request(.get, "/api/installations/laptop", as: bob).status == .notFound)
            #expect(try await session.request(.delete, "/api/installations/laptop", as: bob).status == .notFound)
            #expect(try await session.request(.delete, "/api/installations/laptop", as: alice).status == .noContent)
            #expect(try await session.request(.get, "/api/installations/laptop", as: alice).status == .notFound)
        }
    }

    @Test func anInstallationIdOfAnotherUserIsAConflict() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("laptop", of: alice)
            let response = try await session.request(
                .put, "/api/installations/laptop", as: bob, json: #"{"platform":"direct","pushChannel":"x"}"#)
            #expect(response.status == .conflict)
            #expect(try response.error().code == "installation.taken")
        }
    }

    @Test func aPushChannelTakenOverByAReinstallIsNotAnError() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let json = #"{"platform":"fcm","pushChannel":"same-token"}"#
            #expect(try await session.request(.put, "/api/installations/old-install", as: alice, json: json).status == .created)
            #expect(try await session.request(.put, "/api/installations/new-install", as: alice, json: json).status == .created)
            #expect(try await session.request(.get, "/api/installations/old-install", as: alice).status == .notFound)
        }
    }

    @Test(arguments: [
        (#"{"platform":"pager","pushChannel":"x"}"#, "installation.invalidPlatform"),
        (#"{"platform":"direct","pushChannel":"  "}"#, "installation.invalidPushChannel"),
        (#"{"platform":"apns","pushChannel":"../../3/device/x"}"#, "installation.invalidPushChannel"),
        (#"{"platform":"direct","pushChannel":"x","tags":["has space"]}"#, "installation.invalidTag"),
        (#"{"platform":"direct","pushChannel":"x","tags":["username:bob"]}"#, "installation.reservedTag"),
        (#"{"platform":"direct","pushChannel":"x","tags":["installation:other"]}"#, "installation.reservedTag"),
        (#"{"platform":"direct","pushChannel":"x","tags":["Username:bob"]}"#, "installation.reservedTag"),
        (#"{"platform":"direct","pushChannel":"x","tags":["Installation:bphone"]}"#, "installation.reservedTag"),
        (#"{"platform":"direct","pushChannel":"x","tags":["PLATFORM:apns"]}"#, "installation.reservedTag"),
        (#"{"platform":"direct","pushChannel":"x","tags":["language:fr"]}"#, "installation.reservedTag"),
        (#"{"platform":"direct","pushChannel":"x","tags":["appversion:99"]}"#, "installation.reservedTag"),
        (#"{"platform":"direct"}"#, "request.missingField"),
    ])
    func invalidRegistrationsAre422(json: String, code: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(.put, "/api/installations/laptop", as: alice, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == code)
        }
    }

    @Test(arguments: ["has%20space", "a:b", String(repeating: "x", count: 65)])
    func invalidInstallationIdsAre400(id: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(.put, "/api/installations/\(id)", as: alice, json: #"{"platform":"direct","pushChannel":"x"}"#)
            #expect(response.status == .badRequest)
        }
    }

    @Test func sixtyOneTagsAreTooMany() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let tags = (0...60).map { "\"t\($0)\"" }.joined(separator: ",")
            let response = try await session.request(
                .put, "/api/installations/laptop", as: alice, json: #"{"platform":"direct","pushChannel":"x","tags":[\#(tags)]}"#)
            #expect(try response.error().code == "installation.tooManyTags")
        }
    }

    @Test func adminsListEveryInstallationMembersTheirOwn() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("a", of: alice)
            try await session.register("b", of: bob)
            let all = try await session.request(.get, "/api/installations", as: .admin).json()["items"] as? [[String: Any]]
            #expect(all?.compactMap { $0["installationId"] as? String } == ["a", "b"])
            let own = try await session.request(.get, "/api/installations", as: alice).json()["items"] as? [[String: Any]]
            #expect(own?.compactMap { $0["installationId"] as? String } == ["a"])
        }
    }

    @Test func aMemberCannotTakeOverAnotherUsersDirectChannel() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let eve = try await session.createUser("eve")
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.request(.put, "/api/installations/alaptop", as: alice, json: #"{"platform":"direct","pushChannel":"alaptop"}"#)
            let hijack = try await session.request(
                .put, "/api/installations/hijack1", as: eve, json: #"{"platform":"direct","pushChannel":"alaptop"}"#)
            #expect(hijack.status == .conflict)
            #expect(try hijack.error().code == "installation.channelTaken")
            #expect(try await session.request(.get, "/api/installations/alaptop", as: alice).status == .ok)
            #expect(try await session.request(.get, "/api/installations/hijack1", as: eve).status == .notFound)
            let count = try await session.request(.get, "/api/audiences/count?expression=username:alice", as: mark).json()
            #expect(count["installations"] as? Int64 == 1)
        }
    }

    @Test func aPhoneThatChangesHandsLeavesItsPreviousOwnersInstallationMarkedReplaced() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let eve = try await session.createUser("eve")
            let json = #"{"platform":"apns","pushChannel":"a1b2c3d4"}"#
            #expect(try await session.request(.put, "/api/installations/alice-phone", as: alice, json: json).status == .created)
            #expect(try await session.request(.put, "/api/installations/eve-phone", as: eve, json: json).status == .created)
            let previous = try await session.request(.get, "/api/installations/alice-phone", as: alice)
            #expect(previous.status == .ok)
            #expect(try previous.json()["deadReason"] as? String == "installation.replaced")
        }
    }

    @Test func theTwentyFirstInstallationOfAMemberIs422() async throws {
        try await TestGateway().run { session in
            let eve = try await session.createUser("eve")
            for index in 0..<20 { try await session.register("eve-\(index)", of: eve) }
            let response = try await session.request(
                .put, "/api/installations/eve-20", as: eve, json: #"{"platform":"direct","pushChannel":"eve-20"}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "installation.limit")
            #expect(try await session.request(.get, "/api/installations/eve-20", as: eve).status == .notFound)
            // Updating one of the twenty is not a new installation.
            try await session.register("eve-0", of: eve, tags: ["topic:news"])
        }
    }

    @Test func anAdminsImportIsNotHeldToTheInstallationLimit() async throws {
        try await TestGateway({ $0.maximumInstallationsPerUser = 2 }).run { session in
            try await session.createUser("alice")
            let entries = (0..<5).map { #"{"installationId":"i\#($0)","owner":"alice","platform":"fcm","pushChannel":"t\#($0)"}"# }
            let response = try await session.request(
                .post, "/api/installations/import", as: .admin, json: #"{"installations":[\#(entries.joined(separator: ","))]}"#)
            #expect(response.status == .ok)
            #expect(try response.json()["imported"] as? Int64 == 5)
        }
    }
}
