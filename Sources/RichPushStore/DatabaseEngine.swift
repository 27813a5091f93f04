public import SQLKit

/// Where the store's SQL runs: the one place SQLite and PostgreSQL differ.
///
/// Everything above it is written against SQLKit builders, so both engines run the same queries.
public protocol DatabaseEngine: Sendable {
    /// Runs `body` with a database for reads outside any transaction.
    func read<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws.
    func transaction<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T
    /// Whether this process is the only one using the data, so claims left by an earlier run are stale at start.
    var isExclusive: Bool { get }
    /// Closes every connection.
    func close() async throws
}
