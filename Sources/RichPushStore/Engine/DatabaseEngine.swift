public import SQLKit

/// Where the store's SQL runs: the one place SQLite and PostgreSQL differ.
///
/// Everything above it is written against SQLKit builders, so both engines run the same queries.
public protocol DatabaseEngine: Sendable {
    /// Runs `body` with a database for reads outside any transaction.
    func read<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws; with `durability`
    /// `.deferred` the commit may return before it reaches the disk.
    func transaction<T>(_ durability: CommitDurability, _ body: (any SQLDatabase) async throws -> T) async throws -> T
    /// Whether this process is the only one using the data, so claims left by an earlier run are stale at start.
    var isExclusive: Bool { get }
    /// Tells every process that uses the data about `signals` once the transaction of `db` commits.
    ///
    /// An exclusive engine has no other process to tell: its only process learns of its own changes in memory.
    func announce(_ signals: [StoreSignal], in db: any SQLDatabase) async throws
    /// Calls `handler` with the signals any process announces, until cancelled; throws when it stops hearing them.
    func listen(_ handler: @escaping @Sendable (StoreSignal) -> Void) async throws
    /// Runs `body` (the migrations) while no other process runs it, so processes that start together do not both
    /// create the schema.
    func withMigrationLock<T>(_ body: () async throws -> T) async throws -> T
    /// Gathers the planner's statistics of `tables` after a large write changed their size at once.
    ///
    /// PostgreSQL plans from statistics its autovacuum gathers up to a minute later: a table never analyzed, or one a
    /// bulk write just doubled, otherwise looks small. Then a chunk of an outbox after an import of 100,000
    /// installations was planned as a scan of every installation left and a sort (158 ms instead of 18), and an
    /// export's page by id as a sort of the whole outbox. SQLite's statistics would reach only the connection that
    /// gathered them, so its plans come from its indexes alone, and the SQLite engine does nothing here.
    ///
    /// `detail` is how many values of each column the statistics keep (PostgreSQL's statistics target, which also
    /// sizes the sample read: 300 rows per value), nil for the server's default of 100.
    func refreshStatistics(of tables: [String], detail: Int?) async throws
    /// Closes every connection.
    func close() async throws
}

/// When a commit reaches the disk.
public enum CommitDurability: Sendable {
    /// Before the commit returns: nothing committed is ever lost.
    case synced
    /// Soon after: a crash of the process loses nothing, a power loss may lose the last such commits. For the
    /// dispatcher's bookkeeping, whose loss only repeats work (a push sent again with the same apns-id), so a fan-out
    /// does not wait for the disk at every batch.
    case deferred
}

extension DatabaseEngine {
    /// Runs `body` in one transaction whose commit reaches the disk before it returns.
    public func transaction<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(.synced, body)
    }

    /// An exclusive engine's transactions already exclude each other, migrations included.
    public func withMigrationLock<T>(_ body: () async throws -> T) async throws -> T {
        try await body()
    }

    public func announce(_ signals: [StoreSignal], in db: any SQLDatabase) async throws {}

    public func refreshStatistics(of tables: [String], detail: Int?) async throws {}

    public func listen(_ handler: @escaping @Sendable (StoreSignal) -> Void) async throws {
        throw StoreError.notShared
    }
}

extension SQLDatabase {
    /// Runs `body` between `begin` and `COMMIT`, or `ROLLBACK` when it throws: the framing both engines share.
    nonisolated(nonsending) func inTransaction<T>(
        begin: String, _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> sending T {
        try await raw(SQLQueryString(begin)).run()
        do {
            let result = try await body(self)
            try await raw("COMMIT").run()
            return result
        } catch {
            try? await raw("ROLLBACK").run()
            throw error
        }
    }
}

/// News one gateway process gives the others through the database.
public enum StoreSignal: Sendable, Hashable {
    /// Direct-stream events of `owner` were appended: that user's streams read them. Named by user rather than by
    /// event, so a fan-out's thousand events to one user are one signal per transaction (PostgreSQL sends a repeated
    /// notification of one transaction once) and no process reads the events back to learn whose they are.
    case events(owner: String)
    /// Deliveries fell due now: dispatchers need not wait for their next look.
    case deliveriesDue

    static let eventChannel = "richpush_user_events"
    static let dispatchChannel = "richpush_dispatch"
}
