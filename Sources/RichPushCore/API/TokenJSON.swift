/// An API token as `POST`/`GET /api/tokens` show it; its secret only in the answer that creates it.
public struct TokenJSON: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var owner: String
    public var role: Role
    public var createdAt: String
    public var expiresAt: String?
    public var lastUsedAt: String?
    /// The secret (`rp_…`), shown once: only in the answer that creates the token.
    public var token: String?

    public init(
        id: String, name: String, owner: String, role: Role, createdAt: String, expiresAt: String? = nil, lastUsedAt: String? = nil,
        token: String? = nil
    ) {
        self.id = id
        self.name = name
        self.owner = owner
        self.role = role
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.token = token
    }
}
