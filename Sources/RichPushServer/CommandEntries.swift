import Foundation
import Hummingbird
import Logging
public import RichPushCore
import RichPushStore

/// Runs the gateway the configuration describes until SIGTERM or SIGINT: what `richpush serve` does.
public func runGateway(_ configuration: ServerConfiguration) async throws {
    try await buildApplication(configuration, logger: gatewayLogger(configuration)).runService()
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
