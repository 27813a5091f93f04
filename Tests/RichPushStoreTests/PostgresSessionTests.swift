import Foundation
import PostgresNIO
import SQLKit
import Testing

@testable import RichPushStore

@Suite("Rows and binds on a PostgreSQL connection")
struct PostgresSessionTests {
    /// A value with no PostgreSQL coding of its own.
    struct Reach: Codable, Equatable {
        var devices: Int
        var users: [String]
    }

    @Test func aValueWithoutAPostgreSQLCodingIsBoundAsJSON() async throws {
        let row = try await selectOnce { db in
            db.raw("SELECT (\(bind: Reach(devices: 2, users: ["alice", "bob"])) ->> 'devices')::bigint AS devices")
        }
        #expect(try row.int64("devices") == 2)
    }

    @Test func aColumnWithoutAPostgreSQLDecoderIsReadFromJSON() async throws {
        let row = try await selectOnce { db in
            db.raw("SELECT '{\"devices\": 2, \"users\": [\"alice\", \"bob\"]}'::jsonb AS reach, \(bind: Int64(7)) AS n")
        }
        #expect(try row.decode(column: "reach", as: Reach.self) == Reach(devices: 2, users: ["alice", "bob"]))
        #expect(try row.int64("n") == 7)
    }

    @Test func aNullReadsAsNilAndAnAbsentColumnAsAnError() async throws {
        let row = try await selectOnce { db in db.raw("SELECT NULL::text AS language, 'de' AS fallback") }
        #expect(row.allColumns == ["language", "fallback"])
        #expect(try row.optionalString("language") == nil)
        #expect(try row.decodeNil(column: "language"))
        #expect(try row.string("fallback") == "de")
        #expect(!row.contains(column: "variant"))
        #expect(throws: (any Error).self) { try row.string("variant") }
    }

    /// PostgresNIO drops a statement written to a connection that has closed and never answers it; the session refuses
    /// it instead, so the operation fails and its caller goes on.
    @Test func aStatementOnAConnectionThatHasClosedFailsInsteadOfWaitingForEver() async throws {
        let database = try await TestDatabase(.postgresql)
        defer { database.remove() }
        let engine = try await database.openEngine()
        await #expect(throws: StoreError.unavailable) {
            try await engine.read { db in
                try await (db as! PostgresSession).connection.close()
                try await db.raw("SELECT 1 AS one").run()
            }
        }
        try await engine.close()
    }

    private func selectOnce(_ query: @Sendable (any SQLDatabase) -> SQLRawBuilder) async throws -> any SQLRow {
        let database = try await TestDatabase(.postgresql)
        defer { database.remove() }
        let engine = try await database.openEngine()
        do {
            let row = try await engine.read { db in try await query(db).first()! }
            try await engine.close()
            return row
        } catch {
            try? await engine.close()
            throw error
        }
    }
}
