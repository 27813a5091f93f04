public import Logging
import NIOPosix
public import SQLKit
import Synchronization

/// The embedded default: one SQLite file in WAL mode with one writer connection and a few readers.
///
/// WAL lets readers proceed while the writer commits; transactions take the writer in turn. Each connection has a
/// thread of its own, where a transaction or a read runs whole: no other blocking work (bcrypt, file I/O) queues the
/// database, and a transaction's statements follow each other without waiting for threads to wake.
public final class SQLiteEngine: DatabaseEngine {
    private let writer: SQLiteHandleDatabase
    private let readers: [SQLiteHandleDatabase]
    private let nextReader = Atomic<Int>(0)
    private let writeLock = AsyncMutex()

    public var isExclusive: Bool { true }

    private init(writer: SQLiteHandleDatabase, readers: [SQLiteHandleDatabase]) {
        self.writer = writer
        self.readers = readers
    }

    /// Opens (creating if needed) the database file at `path`.
    public static func open(path: String, readerCount: Int = 2, logger: Logger) async throws -> SQLiteEngine {
        // Statements complete synchronously; futures of the legacy SQLKit interface resolve on this shared loop.
        let futures = MultiThreadedEventLoopGroup.singleton.any()
        var connections: [SQLiteHandleDatabase] = []
        do {
            for _ in 0...readerCount {
                connections.append(SQLiteHandleDatabase(handle: try SQLiteHandle(path: path), logger: logger, eventLoop: futures))
                let db = connections[connections.count - 1]
                try await on(db) { db in
                    // Another process (`richpush user add`, a second gateway starting) may hold the lock for a moment,
                    // even while this one turns WAL on.
                    try await db.raw("PRAGMA busy_timeout = 5000").run()
                    if connections.count == 1 {
                        // WAL survives in the file; FULL makes every commit durable before it is acknowledged.
                        try await enableWriteAheadLog(db)
                    }
                    try await db.raw("PRAGMA synchronous = FULL").run()
                    try await db.raw("PRAGMA foreign_keys = ON").run()
                    // 4 MB holds what a claim works on (a run of outbox rows, their index pages, the installations
                    // they look up). A larger cache costs every commit: ending a transaction walks the cache's hash
                    // table, and with 64 MB that walk was a fifth of a fan-out's SQLite time.
                    try await db.raw("PRAGMA cache_size = -4096").run()
                }
            }
        } catch {
            await close(connections)
            throw error
        }
        return SQLiteEngine(writer: connections[0], readers: Array(connections.dropFirst()))
    }

    /// Turning WAL on takes the file's exclusive lock. Two processes opening a new file at once both hold its shared
    /// lock while asking for that, and SQLite answers one of them "busy" at once instead of letting both wait forever:
    /// the busy timeout does not cover this deadlock, so the one refused asks again once the other is through.
    private static func enableWriteAheadLog(_ db: any SQLDatabase) async throws {
        try await retryingWhileBusy { try await db.raw("PRAGMA journal_mode = WAL").run() }
    }

    /// Another process bringing the schema up to date runs one transaction after another, each taking the write lock
    /// again a moment after releasing it; a process waiting in the busy handler, which looks only now and then, may
    /// find it taken every time until its busy timeout runs out. The steps are idempotent, so it starts them again.
    public func withMigrationLock<T>(_ body: () async throws -> T) async throws -> T {
        try await Self.retryingWhileBusy(body)
    }

    /// Runs `body` again while SQLite answers that another connection holds the lock (or removed a file first), for up
    /// to a minute: what a process starting beside others may meet, though no single statement of it waits that long.
    private static func retryingWhileBusy<T>(_ body: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try await body()
            } catch let failure as SQLiteFailure where (failure.isBusy || failure.isRemovedByAnother) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    public func read<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        let index = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await Self.reportingFullDisk { try await Self.on(readers[index % readers.count], body) }
    }

    public func transaction<T>(_ durability: CommitDurability, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        // IMMEDIATE takes the write lock up front, so a concurrent writer in another process waits at BEGIN instead of
        // failing at the first write.
        try await Self.reportingFullDisk {
            try await writeLock.withLock {
                try await Self.on(writer) { db in
                    guard durability == .deferred else { return try await db.inTransaction(begin: "BEGIN IMMEDIATE", body) }
                    // In WAL mode NORMAL writes the commit to the log without waiting for the disk; the next FULL
                    // commit or checkpoint syncs it.
                    try await db.raw("PRAGMA synchronous = NORMAL").run()
                    do {
                        let result = try await db.inTransaction(begin: "BEGIN IMMEDIATE", body)
                        try await db.raw("PRAGMA synchronous = FULL").run()
                        return result
                    } catch {
                        try await db.raw("PRAGMA synchronous = FULL").run()
                        throw error
                    }
                }
            }
        }
    }

    /// A disk that filled is ``StoreError/full``: the transaction was rolled back whole, and the connection goes on,
    /// so the next write succeeds once space is freed.
    private static func reportingFullDisk<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let failure as SQLiteFailure where failure.isFull {
            throw StoreError.full
        }
    }

    /// Closes every connection, even when one fails, and reports the first failure.
    public func close() async throws {
        if let failure = await Self.close(readers + [writer]) { throw failure }
    }

    /// Runs `body` on the thread of `db`'s connection.
    private static func on<T>(_ db: SQLiteHandleDatabase, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(db.handle.executor) { try await body(db) }
    }

    @discardableResult
    private static func close(_ connections: [SQLiteHandleDatabase]) async -> (any Error)? {
        var firstError: (any Error)?
        for db in connections {
            do {
                try await withTaskExecutorPreference(db.handle.executor) { try db.handle.close() }
            } catch {
                firstError = firstError ?? error
            }
        }
        return firstError
    }
}
