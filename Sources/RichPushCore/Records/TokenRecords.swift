#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An API token as it is listed: never its secret, which is kept only as a digest.
public struct TokenRecord: Sendable, Equatable {
    public var id: String
    public var owner: String
    public var name: String
    public var role: Role
    public var createdAt: Date
    public var expiresAt: Date?
    public var lastUsedAt: Date?

    public init(id: String, owner: String, name: String, role: Role, createdAt: Date, expiresAt: Date? = nil, lastUsedAt: Date? = nil) {
        self.id = id
        self.owner = owner
        self.name = name
        self.role = role
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }
}

/// Who a presented token speaks for, as of now.
public struct TokenUse: Sendable, Equatable {
    public var tokenId: String
    /// The token's name: the browser sessions' are their own.
    public var name: String
    public var username: String
    /// The token's role, lowered to its owner's present role.
    public var role: Role
    public var expiresAt: Date?

    public init(tokenId: String, name: String = "", username: String, role: Role, expiresAt: Date? = nil) {
        self.tokenId = tokenId
        self.name = name
        self.username = username
        self.role = role
        self.expiresAt = expiresAt
    }
}
