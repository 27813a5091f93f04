/// `GET /api/session`: who the browser session is, and the value its changes carry as `X-Richpush-CSRF`.
public struct SessionJSON: Codable, Sendable, Equatable {
    public var username: String
    public var role: Role
    public var csrf: String

    public init(username: String, role: Role, csrf: String) {
        self.username = username
        self.role = role
        self.csrf = csrf
    }
}
