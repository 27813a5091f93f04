import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@Suite("Users and roles")
struct UserTests {
    @Test func theBootstrappedAdminCanSignIn() async throws {
        try await TestGateway().run { session in
            let me = try await session.request(.get, "/api/users/me", as: .admin)
            #expect(me.status == .ok)
            #expect(try me.json()["username"] as? String == "admin")
            #expect(try me.json()["role"] as? String == "admin")
        }
    }

    @Test func anAdminCreatesUsersWithRoles() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let me = try await session.request(.get, "/api/users/me", as: mark).json()
            #expect(me["role"] as? String == "marketer")
        }
    }

    @Test func aDuplicateUsernameIsAConflict() async throws {
        try await TestGateway().run { session in
            try await session.createUser("alice")
            let again = try await session.request(
                .post, "/api/users", as: .admin, json: #"{"username":"alice","password":"another-pass","role":"member"}"#)
            #expect(again.status == .conflict)
            #expect(try again.error().code == "user.exists")
        }
    }

    @Test func aUsernameDifferingOnlyInCaseFromAnotherIsAConflict() async throws {
        try await TestGateway().run { session in
            try await session.createUser("bob")
            let again = try await session.request(
                .post, "/api/users", as: .admin, json: #"{"username":"Bob","password":"another-pass","role":"member"}"#)
            #expect(again.status == .conflict)
            #expect(try again.error().code == "user.exists")
        }
    }

    @Test func onlyAdminsCreateUsers() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(
                .post, "/api/users", as: mark, json: #"{"username":"eve","password":"eve-password","role":"admin"}"#)
            #expect(response.status == .forbidden)
            #expect(try response.error().code == "auth.forbidden")
        }
    }

    @Test(arguments: [
        (#"{"username":"bad name","password":"long-enough","role":"member"}"#, "user.invalidName"),
        (#"{"username":"bob","password":"short","role":"member"}"#, "user.invalidPassword"),
        (#"{"username":"bob","password":"\u0000zzzzzzzzz","role":"member"}"#, "user.invalidPassword"),
        (#"{"username":"bob","password":"ab\u0000cdefghij","role":"member"}"#, "user.invalidPassword"),
        (#"{"username":"bob","password":"tab\tinside-1","role":"member"}"#, "user.invalidPassword"),
        (#"{"username":"bob","password":"long-enough","role":"owner"}"#, "user.invalidRole"),
        (#"{"password":"long-enough","role":"member"}"#, "request.missingField"),
    ])
    func invalidUsersAreRefusedWith422(json: String, code: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/users", as: .admin, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == code)
        }
    }
}
