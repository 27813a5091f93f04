import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Segments in the store")
struct SegmentStoreTests {
    func audience(_ expression: String, in store: Store) async throws -> Int {
        try await store.installations.audienceSize(try TagExpression(parsing: expression)).installations
    }

    @Test(arguments: Engine.allCases) func everyInstallationOfAUserCarriesTheUsersSegmentsPresentOrLater(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "alice", passwordHash: "x", role: .member)
            _ = try await store.users.create(username: "bob", passwordHash: "x", role: .member)
            try await store.register("alice-phone", owner: "alice")
            try await store.register("bob-phone", owner: "bob")
            #expect(try await store.installations.setSegments(["segment:vip"], of: "alice") == ["segment:vip"])
            try await store.register("alice-laptop", owner: "alice")
            #expect(try await audience("segment:vip", in: store) == 2)
            #expect(try await store.installations.installation(id: "alice-laptop")?.allTags.contains("segment:vip") == true)
            #expect(try await store.installations.installation(id: "bob-phone")?.allTags.contains("segment:vip") == false)
        }
    }

    @Test(arguments: Engine.allCases) func replacingAUsersSegmentsTakesTheOldOnesOffItsDevices(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "alice", passwordHash: "x", role: .member)
            try await store.register("alice-phone", owner: "alice", tags: ["topic:news"])
            _ = try await store.installations.setSegments(["segment:vip", "segment:beta"], of: "alice")
            _ = try await store.installations.setSegments(["segment:beta"], of: "alice")
            #expect(try await audience("segment:vip", in: store) == 0)
            #expect(try await audience("segment:beta && topic:news", in: store) == 1)
            #expect(try await store.installations.segments(of: "alice") == ["segment:beta"])
            // Registering the device again keeps what its user was put in.
            try await store.register("alice-phone", owner: "alice")
            #expect(try await audience("segment:beta", in: store) == 1)
        }
    }

    @Test(arguments: Engine.allCases) func theSegmentsOfAMissingUserAreNil(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let read = try await store.installations.segments(of: "nobody")
            let written = try await store.installations.setSegments(["segment:vip"], of: "nobody")
            #expect(read == nil)
            #expect(written == nil)
        }
    }
}
