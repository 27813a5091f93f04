import Foundation
public import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresKit
import PostgresNIO
public import SQLKit

/// The scale-out engine: one PostgreSQL database shared by any number of gateway processes.
///
/// Connections come from a `PostgresClient` pool that the engine runs from its opening to ``close()``, which
/// `richpush serve` calls last, after everything that uses the store has stopped. Transactions run at PostgreSQL's default READ COMMITTED level; the store's claims
/// lock rows with `FOR UPDATE SKIP LOCKED`, and ``announce(_:in:)`` sends `NOTIFY`s that every process's ``listen(_:)`` hears.
///
/// While the server does not answer (stopped, restarting, out of reach), every operation throws
/// ``StoreError/unavailable`` instead of waiting for it (``PostgresReachability``), and once it answers again the pool
/// is replaced by a fresh one: the old pool's backoff between attempts to connect had grown to seconds by then.
public final class PostgresEngine: DatabaseEngine {
    private let pool: PostgresPool
    private let reachability: PostgresReachability
    private let logger: Logger

    public var isExclusive: Bool { false }

    private init(pool: PostgresPool, reachability: PostgresReachability, logger: Logger) {
        self.pool = pool
        self.reachability = reachability
        self.logger = logger
    }

    /// Connects to the database `url` names (`postgres://user:password@host:port/database?sslmode=…`).
    ///
    /// One connection is made first on its own, so a wrong address, password or database name is reported at once
    /// with PostgreSQL's own words instead of after the pool's retries.
    public static func open(url: String, maximumConnections: Int = 20, logger: Logger) async throws
        -> PostgresEngine
    {
        let location = try PostgresLocation(url: url)
        let single = try location.connectionConfiguration()
        do {
            try await connectAndClose(single, logger: logger)
        } catch {
            throw PostgresEngineError("cannot connect to PostgreSQL at \(location.displayAddress): \(Self.describe(error))")
        }
        var configuration = location.clientConfiguration
        configuration.options.maximumConnections = maximumConnections
        let pool = PostgresPool(configuration: configuration, logger: logger)
        let reachability = PostgresReachability(
            probe: {
                do {
                    try await connectAndClose(single, logger: logger)
                    return true
                } catch {
                    return Self.isAnswer(error)
                }
            },
            recovered: { pool.replace() },
            logger: logger)
        return PostgresEngine(pool: pool, reachability: reachability, logger: logger)
    }

    private static func connectAndClose(_ configuration: PostgresConnection.Configuration, logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 0, logger: logger)
        try await connection.close()
    }

    public func read<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await withConnection { connection in try await body(PostgresSession(connection: connection)) }
    }

    /// Runs `body` in a transaction; a deadlock or serialization failure, which PostgreSQL resolves by aborting one
    /// of the transactions involved, runs it again, up to three times.
    public func transaction<T>(_ durability: CommitDurability, _ body: (any SQLDatabase) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await withConnection { connection in
                    try await PostgresSession(connection: connection).inTransaction(begin: "BEGIN") { db in
                        // The server answers the commit before its WAL record is flushed, for this transaction only.
                        if durability == .deferred { try await db.raw("SET LOCAL synchronous_commit = off").run() }
                        return try await body(db)
                    }
                }
            } catch let error as PSQLError where attempt < 3 && Self.isRetryable(error) {
                logger.debug("transaction retried", metadata: ["richpush.sqlstate": "\(error.serverInfo?[.sqlState] ?? "")"])
                attempt += 1
            }
        }
    }

    /// Runs `body` with a connection of the pool, leased by a child task that holds it until `body` returns, so the
    /// wait for it can end as soon as the server is known to be unreachable; a connection lost meanwhile is
    /// ``StoreError/unavailable`` too.
    private func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try reachability.admit()
        let client = pool.client
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let handOff = ConnectionHandOff()
            group.addTask {
                do {
                    try await client.withConnection { connection in await handOff.hold(connection) }
                } catch {
                    handOff.fail(error)
                }
            }
            let connection: PostgresConnection
            do {
                connection = try await reachability.connection(of: handOff)
            } catch {
                group.cancelAll()
                if error is CancellationError || error as? StoreError == .unavailable { throw error }
                // The pool could not lease one: it cannot connect, or it was closed.
                reachability.suspect()
                throw StoreError.unavailable
            }
            defer { handOff.giveBack() }
            do {
                return try await body(connection)
            } catch  where Self.isConnectionLoss(error) {
                reachability.suspect()
                throw StoreError.unavailable
            }
        }
    }

    /// Queues one `NOTIFY` per signal, sent by PostgreSQL when the transaction commits and dropped if it rolls back.
    public func announce(_ signals: [StoreSignal], in db: any SQLDatabase) async throws {
        let owners = Set(
            signals.compactMap { signal -> String? in
                if case .events(let owner) = signal { return owner }
                return nil
            })
        if !owners.isEmpty {
            try await db.raw(
                "SELECT pg_notify(\(bind: StoreSignal.eventChannel), owner) FROM unnest(\(bind: owners.sorted())::text[]) AS owner"
            ).run()
        }
        if signals.contains(.deliveriesDue) {
            try await db.raw("SELECT pg_notify(\(bind: StoreSignal.dispatchChannel), '')").run()
        }
    }

    /// Listens on both channels on one pooled connection until cancelled; throws when the connection is lost.
    public func listen(_ handler: @escaping @Sendable (StoreSignal) -> Void) async throws {
        try reachability.admit()
        try await pool.client.withConnection { connection in
            try await connection.listen(on: StoreSignal.dispatchChannel) { dispatches in
                try await connection.listen(on: StoreSignal.eventChannel) { events in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await _ in dispatches { handler(.deliveriesDue) }
                            throw PostgresEngineError("the notification connection closed")
                        }
                        group.addTask {
                            for try await notification in events { handler(.events(owner: notification.payload)) }
                            throw PostgresEngineError("the notification connection closed")
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            }
        }
    }

    /// Holds a session advisory lock on a connection of its own while `body` runs on others.
    public func withMigrationLock<T>(_ body: () async throws -> T) async throws -> T {
        try await withConnection { connection in
            let db = PostgresSession(connection: connection)
            try await db.raw("SELECT pg_advisory_lock(\(bind: Self.migrationLockKey))").run()
            do {
                let result = try await body()
                try await db.raw("SELECT pg_advisory_unlock(\(bind: Self.migrationLockKey))").run()
                return result
            } catch {
                try? await db.raw("SELECT pg_advisory_unlock(\(bind: Self.migrationLockKey))").run()
                throw error
            }
        }
    }

    /// An arbitrary key that names the schema's migrations among the database's advisory locks ("richpush").
    private static let migrationLockKey: Int64 = 0x7269_6368_7075_7368

    public func refreshStatistics(of tables: [String], detail: Int?) async throws {
        // Statistics lost to a crash are gathered again by autovacuum: the commit need not wait for the disk.
        try await transaction(.deferred) { db in
            if let detail { try await db.raw("SELECT set_config('default_statistics_target', \(bind: String(detail)), true)").run() }
            try await db.raw("ANALYZE \(SQLList(tables.map { SQLIdentifier($0) }))").run()
        }
    }

    /// Stops the pool: its connections close, and the pool's run ends.
    public func close() async throws {
        await pool.close()
    }

    private static func isRetryable(_ error: PSQLError) -> Bool {
        // 40P01 deadlock_detected, 40001 serialization_failure.
        ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// Whether a failure to connect still shows the server there: it refused the connection itself (too many clients,
    /// a bad password), rather than being shut down, starting up or out of reach.
    static func isAnswer(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return !(state.hasPrefix("57P") || state.hasPrefix("08"))
    }

    /// Whether the connection went away under the operation: closed by either side (``PostgresSession`` then refuses
    /// the next statement as ``StoreError/unavailable``), broken, or ended by the server's shutdown (class 57P:
    /// admin_shutdown, crash_shutdown, cannot_connect_now) or a connection exception (class 08).
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if error as? StoreError == .unavailable { return true }
        guard let error = error as? PSQLError else { return false }
        let lost: Set<PSQLError.Code> = [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed]
        if lost.contains(error.code) { return true }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("57P") || state.hasPrefix("08")
    }

    /// PostgresNIO keeps server messages out of `description` so they never leak by accident; at start-up they are
    /// exactly what the operator needs.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// Why the PostgreSQL engine could not start or went on.
public struct PostgresEngineError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Where a `postgres://` URL points, in the two shapes PostgresNIO wants: a pool's and a single connection's.
struct PostgresLocation {
    enum TLSMode: String {
        case disable
        case prefer
        case require
    }

    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String?
    var tls: TLSMode

    var displayAddress: String { "\(host):\(port)/\(database ?? username)" }

    /// Reads `postgres://user[:password]@host[:port][/database][?sslmode=disable|prefer|require]`, as libpq
    /// spells it (`postgresql://` too; `verify-ca`/`verify-full` mean `require`, `allow` means `prefer`).
    init(url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            ["postgres", "postgresql"].contains(scheme)
        else { throw PostgresEngineError("the database URL must start with postgres://") }
        guard let host = components.host, !host.isEmpty else { throw PostgresEngineError("the database URL names no host") }
        guard let username = components.user, !username.isEmpty else {
            throw PostgresEngineError("the database URL names no user (postgres://USER:PASSWORD@\(host)/…)")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username.removingPercentEncoding ?? username
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = String(components.path.drop { $0 == "/" })
        self.database = path.isEmpty ? nil : path.removingPercentEncoding ?? path
        let mode = components.queryItems?.last { ["sslmode", "tlsmode"].contains($0.name.lowercased()) }?.value?.lowercased() ?? "prefer"
        switch mode {
        case "disable": tls = .disable
        case "allow", "prefer": tls = .prefer
        case "require", "verify-ca", "verify-full": tls = .require
        default: throw PostgresEngineError("sslmode must be disable, prefer or require, not \(mode)")
        }
    }

    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch self.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .require: tls = .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch self.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}
