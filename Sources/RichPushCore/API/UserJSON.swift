/// A user account: `POST /api/users`, `GET /api/users/me`.
public struct UserJSON: Codable, Sendable, Equatable {
    public var username: String
    public var role: Role

    public init(username: String, role: Role) {
        self.username = username
        self.role = role
    }
}
