import SQLKit

/// The values in the `settings` table.
public struct SQLSharedSettingRepository: SharedSettingRepository {
    let engine: any DatabaseEngine

    public func value(_ name: String, orCreate makeValue: @Sendable () -> String) async throws -> String {
        try await engine.transaction { db in
            try await db.insert(into: "settings").columns("name", "value").values(name, makeValue())
                .ignoringConflicts(with: "name").run()
            return try await db.select().column("value").from("settings").where("name", .equal, name).first()!
                .string("value")
        }
    }
}
