import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@Suite("Segments: protected tags")
struct SegmentTests {
    @Test func aMarketerPutsAUserInASegmentAndOnlyThatUsersDevicesAreInItsAudience() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.register("alice-phone", of: alice)
            try await session.register("bob-phone", of: bob)
            let put = try await session.request(.put, "/api/users/alice/segments", as: mark, json: #"{"segments":["segment:vip"]}"#)
            #expect(put.status == .ok)
            #expect(try put.json()["segments"] as? [String] == ["segment:vip"])
            let count = try await session.request(.get, "/api/audiences/count?expression=segment:vip", as: mark).json()
            #expect(count["installations"] as? Int == 1)
            let own = try await session.request(.get, "/api/users/alice/segments", as: alice).json()
            #expect(own["segments"] as? [String] == ["segment:vip"])
        }
    }

    @Test(arguments: ["segment:vip", "SEGMENT:vip"])
    func aDeviceThatSetsASegmentItselfIs422(tag: String) async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let response = try await session.request(
                .put, "/api/installations/phone", as: alice, json: #"{"platform":"direct","pushChannel":"phone","tags":["\#(tag)"]}"#)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "installation.reservedTag")
        }
    }

    @Test func aMemberMayNotAssignSegmentsNorReadAnothersSegments() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            _ = try await session.createUser("bob")
            let put = try await session.request(.put, "/api/users/alice/segments", as: alice, json: #"{"segments":["segment:vip"]}"#)
            #expect(put.status == .forbidden)
            #expect(try await session.request(.get, "/api/users/bob/segments", as: alice).status == .forbidden)
        }
    }

    @Test(arguments: [#"{"segments":["topic:sale"]}"#, #"{"segments":["segment:"]}"#, #"{"segments":["segment:a b"]}"#])
    func aSegmentWithoutAProtectedPrefixOrNameIs422(json: String) async throws {
        try await TestGateway().run { session in
            _ = try await session.createUser("alice")
            let response = try await session.request(.put, "/api/users/alice/segments", as: .admin, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "segments.invalid")
        }
    }

    @Test func theSegmentsOfAMissingUserAre404() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.put, "/api/users/nobody/segments", as: .admin, json: #"{"segments":[]}"#)
            #expect(response.status == .notFound)
        }
    }
}
