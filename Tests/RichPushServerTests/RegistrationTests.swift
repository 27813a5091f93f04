import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing

/// The tutorial's iOS client registers through its backend's `/api/register`, mapped onto installations.
@Suite("The tutorial's registration API")
struct RegistrationTests {
    static let token = String(repeating: "ab12", count: 16)

    /// A new registration id from `POST /api/register`.
    func newRegistration(_ session: Session, as user: Credentials) async throws -> String {
        let response = try await session.request(.post, "/api/register", as: user)
        #expect(response.status == .ok)
        return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body), options: .fragmentsAllowed) as? String)
    }

    @Test func theTutorialsClientRegistersItsDeviceAsAnInstallationOfItsUser() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await newRegistration(session, as: alice)
            let registered = try await session.request(
                .put, "/api/register/\(id)", as: alice, json: #"{"Platform":"apns","Handle":"\#(Self.token)","Tags":["username:alice","topic:news"]}"#
            )
            #expect(registered.status == .ok)
            let installation = try await session.request(.get, "/api/installations/\(id)", as: alice).json()
            #expect(installation["platform"] as? String == "apns")
            #expect(installation["pushChannel"] as? String == Self.token)
            #expect((installation["tags"] as? [String])?.contains("topic:news") == true)
            #expect((installation["tags"] as? [String])?.contains("username:alice") == true)
        }
    }

    @Test func eachRegistrationGetsAnIdOfItsOwn() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let first = try await newRegistration(session, as: alice)
            let second = try await newRegistration(session, as: alice)
            #expect(first != second)
        }
    }

    @Test func anotherUsersTagOrAnUnknownPlatformIs422() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await newRegistration(session, as: alice)
            let foreign = try await session.request(
                .put, "/api/register/\(id)", as: alice, json: #"{"Platform":"apns","Handle":"\#(Self.token)","Tags":["username:bob"]}"#)
            #expect(foreign.status == .unprocessableContent)
            #expect(try foreign.error().code == "installation.reservedTag")
            let unknown = try await session.request(.put, "/api/register/\(id)", as: alice, json: #"{"Platform":"direct","Handle":"laptop"}"#)
            #expect(unknown.status == .unprocessableContent)
            #expect(try unknown.error().code == "installation.invalidPlatform")
            #expect(try await session.request(.get, "/api/installations/\(id)", as: alice).status == .notFound)
        }
    }

    @Test func deletingARegistrationRemovesTheInstallation() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let id = try await newRegistration(session, as: alice)
            _ = try await session.request(.put, "/api/register/\(id)", as: alice, json: #"{"Platform":"fcm","Handle":"fcm-token-1"}"#)
            #expect(try await session.request(.delete, "/api/register/\(id)", as: alice).status == .ok)
            #expect(try await session.request(.get, "/api/installations/\(id)", as: alice).status == .notFound)
            #expect(try await session.request(.delete, "/api/register/\(id)", as: alice).status == .notFound)
        }
    }

    @Test func anotherUserCannotDeleteARegistration() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            let id = try await newRegistration(session, as: alice)
            _ = try await session.request(.put, "/api/register/\(id)", as: alice, json: #"{"Platform":"fcm","Handle":"fcm-token-1"}"#)
            #expect(try await session.request(.delete, "/api/register/\(id)", as: bob).status == .notFound)
            #expect(try await session.request(.get, "/api/installations/\(id)", as: alice).status == .ok)
        }
    }
}
