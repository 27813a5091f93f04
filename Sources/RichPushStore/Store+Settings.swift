import SQLKit

extension Store {
    /// The stored value of setting `name`, created with `makeValue()` by the first process that asks.
    ///
    /// Keeping secrets such as the payload-link key in the database gives every gateway process the same one.
    public func setting(_ name: String, orCreate makeValue: @Sendable () -> String) async throws -> String {
        try await engine.transaction { db in
            try await db.insert(into: "settings").columns("name", "value").values(name, makeValue())
                .ignoringConflicts(with: "name").run()
            return try await db.select().column("value").from("settings").where("name", .equal, name).first()!
                .string("value")
        }
    }
}
