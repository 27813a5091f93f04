import Foundation
public import Logging
public import RichPushCore
import SQLKit

/// Everything the gateway keeps, opened on one engine: a repository per aggregate (users, tokens, images, templates,
/// …), each made fresh from the engine and the settings below when asked for, and the notifications with their
/// outbox, installations, feeds and events.
///
/// One implementation over SQLKit serves every engine; see ``DatabaseEngine``.
public struct Store: Sendable {
    let engine: any DatabaseEngine
    let logger: Logger
    /// How this process's dispatchers claim from the outbox on this engine, and what they hold between claims.
    let claims: any OutboxClaims
    /// The fallbacks this process's claims hold in memory, on an exclusive engine; nil on a shared one.
    let heldFallbacks: HeldDeliveries?
    /// Platforms whose installations are copied into a remote hub's registrations (Notification Hubs): their
    /// changes queue a sync in the same transaction.
    public var mirroredPlatforms: Set<Platform> = []
    /// Platforms whose hub sends a notification once to its whole audience (Notification Hubs): their deliveries are
    /// claimed whole, through the pending index, never in their notification's sequence.
    public var audiencePlatforms: Set<Platform> = []

    init(engine: any DatabaseEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
        self.claims = engine.isExclusive ? SQLiteClaims(engine: engine) : PostgresClaims(engine: engine)
        self.heldFallbacks = engine.isExclusive ? HeldDeliveries() : nil
    }

    /// Opens the embedded SQLite store in `directory` (created if missing) and brings its schema up to date.
    ///
    /// The store holds password hashes and the key that signs payload links: the directory is made readable by its
    /// owner alone (0700), and so are the database and its journal files (0600), which SQLite creates with the
    /// database file's mode.
    public static func openSQLite(directory: String, logger: Logger) async throws -> Store {
        let files = FileManager.default
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        let path = directory + "/richpush.sqlite"
        if !files.fileExists(atPath: path) {
            _ = files.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        for file in [path, path + "-wal", path + "-shm"] where files.fileExists(atPath: file) {
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
        let engine = try await SQLiteEngine.open(path: path, logger: logger)
        return try await open(engine: engine, logger: logger)
    }

    /// Connects to the PostgreSQL database `url` names and brings its schema up to date; any number of gateway
    /// processes may share it.
    public static func openPostgres(url: String, logger: Logger) async throws -> Store {
        try await open(engine: try await PostgresEngine.open(url: url, logger: logger), logger: logger)
    }

    /// Brings the schema of `engine` up to date and readies it for a new process; closes `engine` if it cannot.
    public static func open(engine: any DatabaseEngine, logger: Logger) async throws -> Store {
        do {
            try await Migrations.run(on: engine)
            let store = Store(engine: engine, logger: logger)
            if !store.claims.isShared {
                // Claims held by a process that died are stale: this process is the only dispatcher.
                try await store.outbox.releaseAllClaims()
            }
            return store
        } catch {
            try? await engine.close()
            throw error
        }
    }

    public var users: SQLUserRepository { SQLUserRepository(engine: engine, mirroredPlatforms: mirroredPlatforms) }
    public var tokens: SQLTokenRepository { SQLTokenRepository(engine: engine) }
    public var signInFailures: SQLSignInFailureRepository { SQLSignInFailureRepository(engine: engine) }
    public var audit: SQLAuditLog { SQLAuditLog(engine: engine) }
    public var sharedSettings: SQLSharedSettingRepository { SQLSharedSettingRepository(engine: engine) }
    public var images: SQLImageRepository { SQLImageRepository(engine: engine) }
    public var templates: SQLTemplateRepository { SQLTemplateRepository(engine: engine) }
    public var installations: SQLInstallationRepository {
        SQLInstallationRepository(engine: engine, mirroredPlatforms: mirroredPlatforms)
    }
    public var mirrorQueue: SQLMirrorQueue { SQLMirrorQueue(engine: engine) }
    public var feeds: SQLFeedRepository { SQLFeedRepository(engine: engine) }
    public var events: SQLEventLog { SQLEventLog(engine: engine) }
    public var notifications: SQLNotificationRepository {
        SQLNotificationRepository(engine: engine, writesSequences: claims.writesSequences, audiencePlatforms: audiencePlatforms)
    }
    public var results: SQLResultRepository { SQLResultRepository(engine: engine) }
    public var payloadEgress: SQLPayloadEgressRepository { SQLPayloadEgressRepository(engine: engine) }
    public var webhooks: SQLWebhookRepository { SQLWebhookRepository(engine: engine) }
    public var activities: SQLActivityRepository { SQLActivityRepository(engine: engine) }
    public var statePushes: SQLStatePushQueue { SQLStatePushQueue(engine: engine) }
    public var fallbacks: SQLFallbackQueue {
        SQLFallbackQueue(engine: engine, held: heldFallbacks, audiencePlatforms: audiencePlatforms)
    }
    public var outbox: SQLOutbox {
        SQLOutbox(engine: engine, claims: claims, audiencePlatforms: audiencePlatforms)
    }

    /// Whether other gateway processes may use the same data, so what one process changes the others must hear of
    /// (``listen(_:)``) and limits kept in memory must be kept in the store.
    public var isShared: Bool { claims.isShared }

    /// Calls `handler` with every ``StoreSignal`` any process announces, until cancelled; throws when the store stops
    /// hearing them (a lost connection), after which signals may have been missed.
    public func listen(_ handler: @escaping @Sendable (StoreSignal) -> Void) async throws {
        try await engine.listen(handler)
    }

    /// Whether the database answers.
    public func ping() async throws {
        _ = try await engine.read { db in try await db.raw("SELECT 1 AS one").first() }
    }

    public func close() async throws {
        try await engine.close()
    }
}

extension SQLRow {
    func date(_ column: String) throws -> Date {
        dateFromMilliseconds(try decode(column: column, as: Int64.self))
    }

    func optionalDate(_ column: String) throws -> Date? {
        try decode(column: column, as: Int64?.self).map(dateFromMilliseconds)
    }

    func string(_ column: String) throws -> String {
        try decode(column: column, as: String.self)
    }

    func optionalString(_ column: String) throws -> String? {
        try decode(column: column, as: String?.self)
    }

    func int64(_ column: String) throws -> Int64 {
        try decode(column: column, as: Int64.self)
    }

    func int(_ column: String) throws -> Int {
        Int(try decode(column: column, as: Int64.self))
    }

    func enumeration<E: RawRepresentable>(_ column: String, as type: E.Type) throws -> E where E.RawValue == String {
        let raw = try string(column)
        guard let value = E(rawValue: raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(column) holds unknown \(raw)"))
        }
        return value
    }
}
