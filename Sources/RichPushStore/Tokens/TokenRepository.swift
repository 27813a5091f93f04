public import Foundation
public import RichPushCore

/// API tokens: kept as digests of their secrets, listed and revoked by their owners.
public protocol TokenRepository: Sendable {
    func create(
        id: String, owner: String, name: String, role: Role, secretDigest: String, expiresAt: Date?, audit: AuditEntry?, now: Date
    ) async throws -> TokenRecord
    /// The tokens of `owner` (of everyone when nil) whose role is at most `role` (any role when nil), newest first.
    func list(ownedBy owner: String?, roleAtMost role: Role?) async throws -> [TokenRecord]
    /// Removes the token `id` if `owner` (any owner when nil) holds it and its role is at most `role` (any role when
    /// nil); returns what was removed, recorded in the trail as `audit` tells.
    func delete(id: String, ownedBy owner: String?, roleAtMost role: Role?, audit: @escaping @Sendable (TokenRecord) -> AuditEntry?, now: Date)
        async throws -> TokenRecord?
    /// The user a token with this secret digest speaks for, nil when there is none, it has expired or its owner is
    /// gone; records the use as the token's `lastUsedAt`.
    func use(secretDigest: String, now: Date) async throws -> TokenUse?
}
