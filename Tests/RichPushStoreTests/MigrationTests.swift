import Foundation
import Logging
import RichPushCore
import Testing

@testable import RichPushStore

@Suite("Upgrades of the schema")
struct MigrationTests {
    /// The schema of the release before installations could be marked replaced and usernames were folded.
    static let roundOneSchema = 6

    @Test(arguments: Engine.allCases) func anUpgradeKeepsEveryInstallationWithItsTags(_ engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let databaseEngine = try await database.openEngine()
        try await Migrations.run(on: databaseEngine, through: Self.roundOneSchema)
        let before = Store(engine: databaseEngine, logger: Logger(label: "test"))
        try await before.register("phone", owner: "alice", platform: .fcm, tags: ["topic:sale"])
        try await before.register("laptop", owner: "bob", tags: ["topic:news"])
        try await databaseEngine.close()

        let store = try await database.open()
        #expect(try await store.installation(id: "phone")?.tags == ["topic:sale"])
        #expect(try await store.audienceSize(try TagExpression(parsing: "topic:sale || topic:news")).installations == 2)
        #expect(try await store.audienceSize(try TagExpression(parsing: "username:alice && platform:fcm")).installations == 1)
        try await store.upsertInstallation(
            InstallationRecord(
                id: "eve-phone", owner: "eve", platform: .fcm, pushChannel: "phone-channel", tags: [], createdAt: .now, updatedAt: .now))
        #expect(try await store.installation(id: "phone")?.isReplaced == true)
        try await store.close()
    }
}
