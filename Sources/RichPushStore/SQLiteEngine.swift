import Foundation
import Logging
import NIOPosix
import SQLKit
import SQLiteKit
import Synchronization

/// The embedded default: one SQLite file in WAL mode with one writer connection and a few readers.
///
/// WAL lets readers proceed while the writer commits; transactions take the writer in turn. The connections run
/// on their own threads, one each, so no other blocking work (bcrypt, file I/O) can queue the database.
public final class SQLiteEngine: DatabaseEngine {
    private let threads: NIOThreadPool
    /// Where each statement's completion is delivered: a loop of the store's own, since on a loop that also carries
    /// hub connections every statement's answer waits its turn behind their traffic, and a transaction holds the
    /// write lock through several.
    private let completions: MultiThreadedEventLoopGroup
    private let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    private let nextReader = Atomic<Int>(0)
    private let writeLock = AsyncMutex()

    public var isExclusive: Bool { true }

    private init(threads: NIOThreadPool, completions: MultiThreadedEventLoopGroup, writer: SQLiteConnection, readers: [SQLiteConnection]) {
        self.threads = threads
        self.completions = completions
        self.writer = writer
        self.readers = readers
    }

    /// Opens (creating if needed) the database file at `path`.
    public static func open(path: String, readerCount: Int = 2, logger: Logger) async throws -> SQLiteEngine {
        let threads = NIOThreadPool(numberOfThreads: readerCount + 1)
        threads.start()
        let completions = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        func open() async throws -> SQLiteConnection {
            try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: threads, logger: logger, on: completions.any())
        }
        let writer = try await open()
        // WAL survives in the file; FULL makes every commit durable before it is acknowledged.
        try await writer.sql().raw("PRAGMA journal_mode = WAL").run()
        var connections = [writer]
        for _ in 0..<readerCount {
            connections.append(try await open())
        }
        for connection in connections {
            let db = connection.sql()
            try await db.raw("PRAGMA synchronous = FULL").run()
            // Another process (`richpush user add`) may hold the write lock for a moment.
            try await db.raw("PRAGMA busy_timeout = 5000").run()
            try await db.raw("PRAGMA foreign_keys = ON").run()
            // 4 MB holds what a claim works on (a run of outbox rows, their index pages, the installations they look
            // up). A larger cache costs every commit: ending a transaction walks the cache's hash table, and with
            // 64 MB that walk was a fifth of a fan-out's SQLite time.
            try await db.raw("PRAGMA cache_size = -4096").run()
        }
        return SQLiteEngine(threads: threads, completions: completions, writer: writer, readers: Array(connections.dropFirst()))
    }

    public func read<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        let index = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await body(readers[index % readers.count].sql())
    }

    public func transaction<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        // IMMEDIATE takes the write lock up front, so a concurrent writer in another process waits at BEGIN instead of
        // failing at the first write.
        try await writeLock.withLock { try await writer.sql().inTransaction(begin: "BEGIN IMMEDIATE", body) }
    }

    /// Closes every connection, even when one fails, and reports the first failure.
    public func close() async throws {
        var firstError: (any Error)?
        for connection in readers + [writer] where !connection.isClosed {
            do {
                try await connection.close()
            } catch {
                firstError = firstError ?? error
            }
        }
        try await threads.shutdownGracefully()
        try await completions.shutdownGracefully()
        if let firstError { throw firstError }
    }
}
