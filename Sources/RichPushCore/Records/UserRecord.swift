#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A user as stored, with the bcrypt hash of its password.
public struct UserRecord: Sendable, Equatable {
    public var id: Int64
    public var username: String
    public var passwordHash: String
    public var role: Role
    public var createdAt: Date

    public init(id: Int64, username: String, passwordHash: String, role: Role, createdAt: Date) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.role = role
        self.createdAt = createdAt
    }
}
