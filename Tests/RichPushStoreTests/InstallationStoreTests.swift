import Foundation
import Logging
import RichPushCore
import RichPushStore
import Testing

@Suite("Installations in the store")
struct InstallationStoreTests {
    @Test(arguments: Engine.allCases) func everyInstallationCarriesItsAutomaticTags(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let record = try await store.register("phone", owner: "alice", platform: .apns, tags: ["topic:sale"])
            #expect(record.allTags == ["topic:sale", "username:alice", "installation:phone", "platform:apns"])
        }
    }

    /// Installation ids are keys, not words: in a database created for English readers, as on SQLite, `B` sorts
    /// before `_`, which sorts before `a`, and an audience's outbox is written in that order.
    @Test(arguments: Engine.allCases) func installationsAreOrderedByTheBytesOfTheirIdsWhateverTheDatabasesLanguage(_ engine: Engine) async throws {
        try await withStore(engine, icuLocale: "en-US") { store in
            for id in ["a-phone", "_tablet", "B-laptop"] { try await store.register(id, owner: "alice", tags: ["topic:sale"]) }
            #expect(try await store.installations.list(owner: "alice").map(\.id) == ["B-laptop", "_tablet", "a-phone"])
            let id = try await store.send("topic:sale").notification.id
            #expect(
                try await store.results.deliveryResults(notificationId: id, limit: 10).map(\.installationId) == ["B-laptop", "_tablet", "a-phone"])
        }
    }

    @Test(arguments: Engine.allCases) func aPushChannelMovesToTheInstallationThatRegistersIt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.installations.upsert(
                InstallationRecord(id: "old", owner: "alice", platform: .fcm, pushChannel: "token", tags: [], createdAt: .now, updatedAt: .now))
            let (_, created) = try await store.installations.upsert(
                InstallationRecord(id: "new", owner: "alice", platform: .fcm, pushChannel: "token", tags: [], createdAt: .now, updatedAt: .now))
            #expect(created)
            #expect(try await store.installations.installation(id: "old") == nil)
            #expect(try await store.installations.installation(id: "new")?.pushChannel == "token")
        }
    }

    @Test(arguments: Engine.allCases) func aDirectChannelIsNeverTakenFromAnotherUser(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("alaptop", owner: "alice")
            await #expect(throws: StoreError.channelTaken) {
                try await store.installations.upsert(
                    InstallationRecord(
                        id: "hijack1", owner: "eve", platform: .direct, pushChannel: "alaptop-channel", tags: [], createdAt: .now,
                        updatedAt: .now))
            }
            #expect(try await store.installations.installation(id: "alaptop")?.deadAt == nil)
            #expect(try await store.installations.installation(id: "hijack1") == nil)
            #expect(try await store.installations.audienceSize(try TagExpression(parsing: "username:alice")).installations == 1)
        }
    }

    @Test(arguments: Engine.allCases)
    func aHubTokenRegisteredByAnotherUserMarksThePreviousInstallationReplaced(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("alice-phone", owner: "alice", platform: .fcm)
            _ = try await store.send("username:alice")
            try await store.installations.upsert(
                InstallationRecord(
                    id: "eve-phone", owner: "eve", platform: .fcm, pushChannel: "alice-phone-channel", tags: [], createdAt: .now,
                    updatedAt: .now))
            let previous = try #require(try await store.installations.installation(id: "alice-phone"))
            #expect(previous.isReplaced)
            #expect(previous.deadAt != nil)
            #expect(try await store.installations.audienceSize(try TagExpression(parsing: "username:alice")).installations == 0)
            #expect(try await store.installations.audienceSize(try TagExpression(parsing: "username:eve")).installations == 1)
            // Alice's outstanding push must not reach the phone that is now Eve's.
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).isEmpty)
        }
    }

    @Test(arguments: Engine.allCases)
    func theOutstandingDeliveriesOfAReplacedInstallationFailAtOnceWithTheReason(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("alice-phone", owner: "alice", platform: .fcm)
            let first = try await store.send("username:alice").notification
            let second = try await store.send("username:alice").notification
            _ = try await store.outbox.claimDue(limit: 1, lease: 60)
            try await store.installations.upsert(
                InstallationRecord(
                    id: "eve-phone", owner: "eve", platform: .fcm, pushChannel: "alice-phone-channel", tags: [], createdAt: .now,
                    updatedAt: .now))
            // The first is on its way to the hub: its answer says how it ended. The second never leaves.
            let unsent = try await store.results.counts(notificationId: second.id)
            #expect(unsent.tally == DeliveryTally(failed: 1))
            #expect(unsent.errors.map(\.code) == [InstallationRecord.replacedReason])
            #expect(try await store.results.counts(notificationId: first.id).tally.failed <= 1)
        }
    }

    @Test(arguments: Engine.allCases) func theOwnerRegisteringAReplacedInstallationAgainTakesTheTokenBack(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let token = { (id: String, owner: String) in
                InstallationRecord(id: id, owner: owner, platform: .apns, pushChannel: "a1b2", tags: [], createdAt: .now, updatedAt: .now)
            }
            try await store.installations.upsert(token("alice-phone", "alice"))
            try await store.installations.upsert(token("eve-phone", "eve"))
            try await store.installations.upsert(token("alice-phone", "alice"))
            #expect(try await store.installations.installation(id: "alice-phone")?.deadAt == nil)
            #expect(try await store.installations.installation(id: "eve-phone")?.isReplaced == true)
        }
    }

    @Test(arguments: Engine.allCases) func anOwnersNewInstallationBeyondTheLimitIsRefused(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "eve", passwordHash: "x", role: .member)
            let device = { (id: String) in
                InstallationRecord(id: id, owner: "eve", platform: .direct, pushChannel: id, tags: [], createdAt: .now, updatedAt: .now)
            }
            for index in 0..<3 { try await store.installations.upsert(device("d\(index)"), limit: 3) }
            await #expect(throws: StoreError.installationLimit(3)) { try await store.installations.upsert(device("d3"), limit: 3) }
            #expect(try await store.installations.upsert(device("d2"), limit: 3).created == false)
            #expect(try await store.installations.list(owner: "eve").count == 3)
        }
    }

    @Test func registrationsOfOneOwnerOnTwoProcessesAtOnceStopAtTheLimit() async throws {
        try await withStores(.postgresql, count: 2) { stores in
            _ = try await stores[0].users.create(username: "eve", passwordHash: "x", role: .member)
            let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let device = InstallationRecord(
                            id: "d\(index)", owner: "eve", platform: .direct, pushChannel: "d\(index)", tags: [], createdAt: .now,
                            updatedAt: .now)
                        do {
                            _ = try await stores[index % 2].installations.upsert(device, limit: 5)
                            return true
                        } catch StoreError.installationLimit {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(accepted == 5)
            #expect(try await stores[0].installations.list(owner: "eve").count == 5)
        }
    }

    @Test(arguments: Engine.allCases) func usernamesDifferingOnlyInCaseAreOneName(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.users.create(username: "bob", passwordHash: "x", role: .member)
            await #expect(throws: StoreError.duplicate("username")) {
                _ = try await store.users.create(username: "Bob", passwordHash: "y", role: .member)
            }
        }
    }

    @Test(arguments: Engine.allCases) func anotherUsersInstallationIdIsRefused(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("shared", owner: "alice")
            await #expect(throws: StoreError.installationOwnedByAnother) { try await store.register("shared", owner: "bob") }
        }
    }

    @Test(arguments: Engine.allCases) func updatingReplacesTheTags(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", tags: ["topic:sale"])
            try await store.register("a1", owner: "alice", tags: ["topic:news"])
            _ = try await store.send("topic:sale")
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).isEmpty)
            _ = try await store.send("topic:news")
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).count == 1)
        }
    }
}

@Suite("Imports of installations")
struct ImportStoreTests {
    func record(_ id: String, owner: String = "alice", channel: String? = nil, tags: [String] = ["topic:sale"]) -> InstallationRecord {
        InstallationRecord(
            id: id, owner: owner, platform: .fcm, pushChannel: channel ?? "\(id)-token", tags: tags, createdAt: .now, updatedAt: .now)
    }

    @Test(arguments: Engine.allCases)
    func newInstallationsAreRegisteredWithTheirTagsAndAddressable(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let created = try await store.installations.importAll((0..<1200).map { record("phone-\($0)") })
            #expect(created == 1200)
            #expect(try await store.installations.installation(id: "phone-1199")?.tags == ["topic:sale"])
            #expect(try await store.installations.audienceSize(try TagExpression(parsing: "topic:sale && platform:fcm")).installations == 1200)
        }
    }

    @Test(arguments: Engine.allCases)
    func anImportMovesAPushChannelAndUpdatesAnExistingInstallationAsSingleRegistrationsWould(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.installations.upsert(record("old", channel: "shared-token"))
            try await store.installations.upsert(record("kept", tags: []))
            let created = try await store.installations.importAll([record("new", channel: "shared-token"), record("kept", tags: ["vip"])])
            #expect(created == 1)
            #expect(try await store.installations.installation(id: "old") == nil)
            #expect(try await store.installations.installation(id: "new")?.pushChannel == "shared-token")
            #expect(try await store.installations.installation(id: "kept")?.tags == ["vip"])
        }
    }

    @Test func aBulkImportTellsPostgreSQLsPlannerHowManyInstallationsThereAreNow() async throws {
        try await withStoreAndEngine(.postgresql) { store, engine in
            let count = 1_000
            _ = try await store.installations.importAll((0..<count).map { record("desk-\($0)", channel: "channel-\($0)") })
            #expect(try await plannedRows(of: "installations", in: engine) == count)
            #expect(try await plannedRows(of: "installation_tags", in: engine) > count)
        }
    }

    @Test(arguments: Engine.allCases)
    func anImportWithAnotherUsersInstallationStoresNothing(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.installations.upsert(record("taken", owner: "bob"))
            await #expect(throws: StoreError.installationOwnedByAnother) {
                try await store.installations.importAll([record("fresh"), record("taken")])
            }
            #expect(try await store.installations.installation(id: "fresh") == nil)
        }
    }
}
