import Foundation
import Hummingbird
import Logging
public import RichPushCore
import RichPushStore
import ServiceLifecycle
import UnixSignals

/// Runs the gateway the configuration describes until SIGTERM or SIGINT: what `richpush serve` does.
///
/// On PostgreSQL the connection pool is a service of the same group, listed before the gateway so that on shutdown
/// it stops after the gateway's services have finished with the store.
public func runGateway(_ configuration: ServerConfiguration) async throws {
    let logger = gatewayLogger(configuration)
    guard let url = configuration.databaseURL else {
        try await buildApplication(configuration, logger: logger).runService()
        return
    }
    let engine = try await openPostgresEngine(url: url, runsPool: false, logger: logger)
    let gateway = GatewayOnPool(configuration: configuration, engine: engine, logger: logger)
    let group = ServiceGroup(
        configuration: .init(services: [engine.pool, gateway], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
}

/// The gateway on a store whose connection pool the service group runs: the store is migrated and the application
/// built once the pool is running, then the application runs until the group shuts down.
private struct GatewayOnPool: Service {
    let configuration: ServerConfiguration
    let engine: PostgresEngine
    let logger: Logger

    func run() async throws {
        let store = try await Store.open(engine: engine, logger: logger)
        try await buildApplication(configuration, store: store, logger: logger).run()
    }
}

/// Creates a user in the store that `serve` with the same configuration uses: what `richpush user add` does on the
/// server's machine. No user is signed in there, so the audit trail names the local account that ran it.
public func createUser(
    named username: String,
    password: String,
    role: Role,
    localAccount: String,
    configuration: ServerConfiguration
) async throws {
    var logger = Logger(label: "richpush.user")
    logger.logLevel = .warning
    let store = try await openStore(configuration, logger: logger)
    do {
        let hash = try await PasswordHasher().hash(password)
        _ = try await store.users.create(
            username: username, passwordHash: hash, role: role,
            audit: AuditEntry(actor: "local:" + localAccount, action: .userCreated, target: username, details: role.rawValue))
        try await store.close()
    } catch StoreError.duplicate {
        try await store.close()
        throw DuplicateUser(username: username)
    }
}

/// A user of that name is already in the store.
public struct DuplicateUser: Error, CustomStringConvertible {
    public let username: String

    public var description: String { "a user named \(username) already exists" }
}
