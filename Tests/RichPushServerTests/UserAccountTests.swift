import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@Suite("Passwords and removed users")
struct UserAccountTests {
    @Test func aUserChangesItsOwnPasswordAndTheOldOneStopsWorkingAtOnce() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
            let changed = try await session.request(
                .put, "/api/users/alice/password", as: alice, json: #"{"password":"a-new-password","currentPassword":"alice-password"}"#)
            #expect(changed.status == .noContent)
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .unauthorized)
            let renewed = Credentials(username: "alice", password: "a-new-password")
            #expect(try await session.request(.get, "/api/users/me", as: renewed).status == .ok)
        }
    }

    @Test func changingOnesOwnPasswordWithoutOrWithAWrongCurrentPasswordIsRefused() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let without = try await session.request(.put, "/api/users/alice/password", as: alice, json: #"{"password":"a-new-password"}"#)
            #expect(without.status == .unprocessableContent)
            #expect(try without.error().code == "user.currentPasswordRequired")
            let wrong = try await session.request(
                .put, "/api/users/alice/password", as: alice, json: #"{"password":"a-new-password","currentPassword":"a-guess-at-it"}"#)
            #expect(wrong.status == .forbidden)
            #expect(try wrong.error().code == "user.wrongPassword")
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
        }
    }

    @Test func anAdminsTokenOfTheMemberRoleCannotTakeOverTheAdminByItsPassword() async throws {
        try await TestGateway().run { session in
            let created = try await session.request(.post, "/api/tokens", as: .admin, json: #"{"name":"script","role":"member"}"#).json()
            let token = try #require(created["token"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
            for body in [#"{"password":"taken-over-1"}"#, #"{"password":"taken-over-1","currentPassword":"\#(Credentials.admin.password)"}"#] {
                let response = try await session.request(.put, "/api/users/admin/password", json: body, headers: bearer)
                #expect(response.status == .forbidden)
            }
            #expect(
                try await session.request(.get, "/api/users/me", as: Credentials(username: "admin", password: "taken-over-1")).status == .unauthorized
            )
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .ok)
        }
    }

    @Test func evenAnAdminRoleTokenCannotChangeItsOwnersPassword() async throws {
        try await TestGateway().run { session in
            let created = try await session.request(.post, "/api/tokens", as: .admin, json: #"{"name":"script"}"#).json()
            let bearer: HTTPFields = [.authorization: "Bearer \(try #require(created["token"] as? String))"]
            let response = try await session.request(
                .put, "/api/users/admin/password", json: #"{"password":"taken-over-1","currentPassword":"\#(Credentials.admin.password)"}"#,
                headers: bearer)
            #expect(response.status == .forbidden)
            try await session.createUser("alice")
            let other = try await session.request(.put, "/api/users/alice/password", json: #"{"password":"set-by-admin-token"}"#, headers: bearer)
            #expect(other.status == .noContent)
        }
    }

    @Test func anAdminSetsAnotherUsersPassword() async throws {
        try await TestGateway().run { session in
            try await session.createUser("alice")
            let changed = try await session.request(.put, "/api/users/alice/password", as: .admin, json: #"{"password":"set-by-admin"}"#)
            #expect(changed.status == .noContent)
            let alice = Credentials(username: "alice", password: "set-by-admin")
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
        }
    }

    @Test func aMemberMayNotChangeAnotherUsersPassword() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.createUser("bob")
            let response = try await session.request(.put, "/api/users/bob/password", as: alice, json: #"{"password":"taken-over"}"#)
            #expect(response.status == .forbidden)
            #expect(try await session.request(.get, "/api/users/me", as: Credentials(username: "bob", password: "bob-password")).status == .ok)
        }
    }

    @Test func aTooShortNewPasswordIsRefusedAndTheOldOneKept() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .put, "/api/users/alice/password", as: alice, json: #"{"password":"short","currentPassword":"alice-password"}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "user.invalidPassword")
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
        }
    }

    @Test func aNewPasswordWithANulIsRefusedAndTheOldOneKept() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .put, "/api/users/alice/password", as: alice, json: #"{"password":"alice-password\u0000junk","currentPassword":"alice-password"}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "user.invalidPassword")
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
        }
    }

    @Test func theNewPasswordOfAnUnknownUserIsNotFound() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.put, "/api/users/ghost/password", as: .admin, json: #"{"password":"long-enough"}"#)
            #expect(response.status == .notFound)
            #expect(try response.error().code == "user.notFound")
        }
    }

    @Test func aRemovedUserCanNoLongerSignInAndItsDevicesAreGone() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
            #expect(try await session.request(.delete, "/api/users/alice", as: .admin).status == .noContent)
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .unauthorized)
            #expect(try await session.request(.get, "/api/installations/laptop", as: .admin).status == .notFound)
            // A later user of the same name starts empty.
            let successor = try await session.createUser("alice")
            let feed = try await session.request(.get, "/api/me/notifications", as: successor).json()
            #expect((feed["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func onlyAdminsRemoveUsersAndNotThemselves() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.createUser("alice")
            #expect(try await session.request(.delete, "/api/users/alice", as: mark).status == .forbidden)
            let itself = try await session.request(.delete, "/api/users/admin", as: .admin)
            #expect(itself.status == .conflict)
            #expect(try itself.error().code == "user.self")
            #expect(try await session.request(.delete, "/api/users/ghost", as: .admin).status == .notFound)
        }
    }
}
