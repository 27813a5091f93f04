/// Who richpushd speaks to the gateway as: a user with a password (HTTP Basic), or an API token (Bearer), which names
/// its user itself.
public enum GatewayCredential: Sendable, Equatable {
    case password(username: String, password: String)
    case token(String)

    /// How messages name it; never the secret.
    public var holder: String {
        switch self {
        case .password(let username, _): "user \(username)"
        case .token: "the API token"
        }
    }
}
