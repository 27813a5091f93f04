import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import RichPushCore
import Testing

@testable import RichPushServer

@Suite("Importing installations")
struct InstallationImportTests {
    static func entries(_ count: Int, owner: String, from first: Int = 0) -> String {
        let items = (first..<first + count).map {
            #"{"installationId":"dev-\#($0)","owner":"\#(owner)","platform":"fcm","pushChannel":"token-\#($0)","tags":["topic:sale"]}"#
        }
        return #"{"installations":[\#(items.joined(separator: ","))]}"#
    }

    @Test func anAdminImportsThousandsOfRegistrationsForTheirOwnersInOneRequest() async throws {
        try await TestGateway().run { session in
            try await session.createUser("alice")
            let response = try await session.request(.post, "/api/installations/import", as: .admin, json: Self.entries(2000, owner: "alice"))
            #expect(response.status == .ok)
            #expect(try response.json()["created"] as? Int64 == 2000)
            let installation = try await session.request(.get, "/api/installations/dev-1999", as: .admin).json()
            #expect(installation["owner"] as? String == "alice")
            #expect(installation["tags"] as? [String] == ["installation:dev-1999", "platform:fcm", "topic:sale", "username:alice"])
        }
    }

    @Test func anImportWithOneBadEntryStoresNothingAndNamesTheEntry() async throws {
        try await TestGateway().run { session in
            try await session.createUser("alice")
            let body = Self.entries(3, owner: "alice").replacingOccurrences(
                of: #""owner":"alice","platform":"fcm","pushChannel":"token-2""#, with: #""owner":"nobody","platform":"fcm","pushChannel":"token-2""#)
            let response = try await session.request(.post, "/api/installations/import", as: .admin, json: body)
            let error = try response.error()
            #expect(error.code == "installation.unknownOwner")
            #expect(error.message.hasPrefix("installations[2]:"))
            #expect(try await session.request(.get, "/api/installations/dev-0", as: .admin).status == .notFound)
        }
    }

    @Test func onlyAdminsImport() async throws {
        try await TestGateway().run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let response = try await session.request(.post, "/api/installations/import", as: mark, json: Self.entries(1, owner: "mark"))
            #expect(response.status == .forbidden)
        }
    }
}
