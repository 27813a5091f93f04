import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Every JSON body of the API is read strictly: a field the endpoint does not know, or one of the wrong JSON type,
/// is refused with a sentence naming it, and nothing is stored.
@Suite("Strict requests")
struct StrictRequestTests {
    @Test func aMisspelledDeliverAtIsRefusedAndNothingIsSent() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let response = try await session.request(
                .post, "/api/notifications", as: .admin,
                json: #"{"message":"Sale","richType":"text","text":"x","audience":"username:alice","delivrAt":"2999-01-01T09:00:00Z"}"#)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "request.unknownField")
            #expect(try response.error().message.contains("delivrAt"))
            let list = try await session.request(.get, "/api/notifications", as: .admin).json()
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    /// One request of each JSON endpoint, as alice (a member with a notification to her) or the admin may send it; the
    /// template `welcome` exists.
    static let endpoints: [(method: HTTPRequest.Method, path: String, json: String)] = [
        (.post, "/api/users", #"{"username":"bob","password":"bob-password","role":"member"}"#),
        (.put, "/api/users/alice/password", #"{"password":"another-password"}"#),
        (.put, "/api/installations/phone", #"{"platform":"fcm","pushChannel":"token-1","tags":["topic:sale"]}"#),
        (.post, "/api/installations/import", #"{"installations":[{"installationId":"i1","owner":"alice","platform":"fcm","pushChannel":"t1"}]}"#),
        (.post, "/api/notifications", #"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#),
        (.patch, "/api/me/notifications/1", #"{"readState":"read"}"#),
        (.post, "/api/me/notifications/1/receipts", #"{"installationId":"laptop","event":"displayed"}"#),
        (.post, "/api/templates", #"{"name":"spring","message":"Spring sale","richType":"text","text":"x"}"#),
        (.put, "/api/templates/welcome", #"{"message":"Welcome back","richType":"text","text":"x"}"#),
        (.put, "/api/register/reg-1", #"{"Platform":"fcm","Handle":"token-9","Tags":["topic:sale"]}"#),
        (.put, "/api/users/alice/segments", #"{"segments":["segment:vip"]}"#),
        (.post, "/api/tokens", #"{"name":"ci","role":"marketer"}"#),
    ]

    /// `json` with `"field": value` added inside its first object that `path` names (`""` the top).
    static func adding(_ field: String, _ value: String, to json: String, inside marker: String = "") -> String {
        guard !marker.isEmpty, let range = json.range(of: marker) else {
            return "{\"\(field)\":\(value)," + json.dropFirst()
        }
        return json.replacingCharacters(in: range, with: marker + "\"\(field)\":\(value),")
    }

    func withAliceAndANotification(_ body: @Sendable (Session) async throws -> Void) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            _ = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let template = #"{"name":"welcome","message":"Welcome","richType":"text","text":"x"}"#
            #expect(try await session.request(.post, "/api/templates", as: .admin, json: template).status == .created)
            try await body(session)
        }
    }

    @Test(arguments: endpoints.indices)
    func anUnknownFieldIsRefusedWith400NamingIt(endpoint: Int) async throws {
        let (method, path, json) = Self.endpoints[endpoint]
        try await withAliceAndANotification { session in
            let caller = path.hasPrefix("/api/me") ? Credentials(username: "alice", password: "alice-password") : .admin
            let response = try await session.request(method, path, as: caller, json: Self.adding("colour", #""blue""#, to: json))
            #expect(response.status == .badRequest, "\(path)")
            #expect(try response.error().code == "request.unknownField", "\(path)")
            #expect(try response.error().message.contains("colour"), "\(path)")
            // The same body without it is accepted.
            #expect((200..<300).contains(try await session.request(method, path, as: caller, json: json).status.code), "\(path)")
        }
    }

    @Test func anUnknownFieldInsideAnImportedInstallationIsNamedByItsPath() async throws {
        try await withAliceAndANotification { session in
            let json =
                #"{"installations":[{"installationId":"i1","owner":"alice","platform":"fcm","pushChannel":"t1"},{"installationId":"i2","owner":"alice","platfrom":"fcm","platform":"fcm","pushChannel":"t2"}]}"#
            let response = try await session.request(.post, "/api/installations/import", as: .admin, json: json)
            #expect(response.status == .badRequest)
            #expect(try response.error().message.hasPrefix("installations[1].platfrom"))
            #expect(try await session.request(.get, "/api/installations/i1", as: .admin).status == .notFound)
        }
    }

    @Test func aPlatformNoHubHasInAnImportIs422NamingTheEntryAndThePlatformsThereAre() async throws {
        try await withAliceAndANotification { session in
            let json =
                #"{"installations":[{"installationId":"i1","owner":"alice","platform":"fcm","pushChannel":"t1"},{"installationId":"i2","owner":"alice","platform":"pager","pushChannel":"t2"}]}"#
            let response = try await session.request(.post, "/api/installations/import", as: .admin, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "installation.invalidPlatform")
            #expect(try response.error().message == "installations[1].platform must be one of apns, fcm, wns, webpush, direct.")
            #expect(try await session.request(.get, "/api/installations/i1", as: .admin).status == .notFound)
        }
    }

    @Test(arguments: [
        (#"{"message":7,"richType":"text","text":"x"}"#, "message must be a string, not a number."),
        (#"{"message":"m","richType":"img","imageId":"1"}"#, "imageId must be an integer"),
        (#"{"message":"m","richType":["text"],"text":"x"}"#, "richType must be a string, not an array."),
    ])
    func aFieldOfTheWrongJSONTypeIs400NamingTheTypeExpected(json: String, message: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: json)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "request.invalidField")
            #expect(try response.error().message.hasPrefix(message))
        }
    }
}
