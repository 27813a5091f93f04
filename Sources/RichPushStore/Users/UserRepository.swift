public import Foundation
public import RichPushCore

/// The people who sign in: their names, password hashes and roles.
public protocol UserRepository: Sendable {
    /// Creates a user; throws ``StoreError/duplicate(_:)`` when the name is taken, in any case (`Bob` when `bob`
    /// exists).
    func create(username: String, passwordHash: String, role: Role, audit: AuditEntry?, now: Date) async throws -> UserRecord
    /// The user named `username`, if any.
    func user(named username: String) async throws -> UserRecord?
    /// How many users exist; the admin bootstrap runs only on an empty store.
    func count() async throws -> Int
    /// Replaces the password hash of `username`; returns false when there is no such user.
    func setPasswordHash(username: String, passwordHash: String, audit: AuditEntry?, now: Date) async throws -> Bool
    /// Removes a user with its installations (their outstanding deliveries fail), its feed, its stream events and its
    /// tokens, so a later user of the same name inherits nothing; returns false when there is no such user.
    func delete(username: String, audit: AuditEntry?, now: Date) async throws -> Bool
}
