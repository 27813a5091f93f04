import Foundation
import Logging
import RichPushStore
import SQLKit
import TestPostgres
import Testing

/// The engines every store test runs on: the same suite, the same queries, both databases.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    var testDescription: String { rawValue }
}

/// A place for one test's data: a fresh SQLite directory or a fresh PostgreSQL database, removed afterwards.
struct TestDatabase: Sendable {
    let engine: Engine
    private let location: String

    /// A PostgreSQL database's text compares in `icuLocale`'s collation when given; SQLite has none but its own.
    init(_ engine: Engine, icuLocale: String? = nil) async throws {
        self.engine = engine
        switch engine {
        case .sqlite:
            location = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-store-\(UUID().uuidString)").path
        case .postgresql:
            location = try await TestPostgres.createDatabase(icuLocale: icuLocale)
        }
    }

    /// Opens a store on the data, as one gateway process would; several may be open at once.
    func open() async throws -> Store {
        switch engine {
        case .sqlite: try await Store.openSQLite(directory: location, logger: Logger(label: "test"))
        case .postgresql: try await Store.openPostgres(url: location, logger: Logger(label: "test"))
        }
    }

    /// The engine alone, without migrating the schema.
    func openEngine() async throws -> any DatabaseEngine {
        switch engine {
        case .sqlite:
            try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
            return try await SQLiteEngine.open(path: location + "/richpush.sqlite", logger: Logger(label: "test"))
        case .postgresql:
            return try await PostgresEngine.open(url: location, logger: Logger(label: "test"))
        }
    }

    func remove() {
        switch engine {
        case .sqlite: try? FileManager.default.removeItem(atPath: location)
        case .postgresql: TestPostgres.dropDatabase(location)
        }
    }
}

/// A store on fresh data of `engine`, a PostgreSQL database in `icuLocale`'s collation when given.
func withStore<T>(_ engine: Engine, icuLocale: String? = nil, _ body: (Store) async throws -> T) async throws -> T {
    try await withStores(engine, count: 1, icuLocale: icuLocale) { try await body($0[0]) }
}

/// `count` stores on the same fresh data, as `count` gateway processes sharing it would have.
func withStores<T>(_ engine: Engine, count: Int, icuLocale: String? = nil, _ body: ([Store]) async throws -> T) async throws -> T {
    let database = try await TestDatabase(engine, icuLocale: icuLocale)
    defer { database.remove() }
    var stores: [Store] = []
    do {
        for _ in 0..<count { stores.append(try await database.open()) }
        let result = try await body(stores)
        for store in stores { try await store.close() }
        return result
    } catch {
        for store in stores { try? await store.close() }
        throw error
    }
}

/// `count` dispatchers on fresh data of `engine`: on PostgreSQL each in a gateway process of its own, a store each; on
/// SQLite all in the one process an embedded store has, sharing its store.
func withDispatchers<T>(_ engine: Engine, count: Int, _ body: ([Store]) async throws -> T) async throws -> T {
    switch engine {
    case .postgresql: try await withStores(engine, count: count, body)
    case .sqlite: try await withStore(engine) { store in try await body(Array(repeating: store, count: count)) }
    }
}

/// A store on fresh data of `kind`, with the engine beside it to ask the database what it plans.
func withStoreAndEngine(_ kind: Engine, _ body: (Store, any DatabaseEngine) async throws -> Void) async throws {
    let database = try await TestDatabase(kind)
    defer { database.remove() }
    let store = try await database.open()
    let engine = try await database.openEngine()
    do {
        try await body(store, engine)
        try await engine.close()
        try await store.close()
    } catch {
        try? await engine.close()
        try? await store.close()
        throw error
    }
}

/// How many rows PostgreSQL's planner believes `table` holds; -1 for a table never analyzed.
func plannedRows(of table: String, in engine: any DatabaseEngine) async throws -> Int {
    try await engine.read { db in
        try await db.raw("SELECT reltuples::bigint AS n FROM pg_class WHERE relname = \(bind: table)").first()!.decode(column: "n", as: Int.self)
    }
}
