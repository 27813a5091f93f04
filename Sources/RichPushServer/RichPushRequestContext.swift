public import Foundation
public import Hummingbird
public import HummingbirdAuth
import NIOCore
public import RichPushCore

/// Who made a request, once its password or token has been verified.
public struct AuthenticatedUser: Sendable, Equatable {
    public var username: String
    public var role: Role
    /// The API token the request came with; nil for a password.
    public var tokenId: String? = nil
    /// When that token expires, so what it makes expires no later; nil for a password, a token that does not, and a
    /// browser session made with a password.
    public var tokenExpiresAt: Date? = nil
    /// Signed in by a browser session made with a password: it acts as the password did (the console's tokens outlive
    /// the session that made them), and the audit trail names it as a session.
    public var inBrowserSession = false
}

/// The context of every gateway request: the framework's storage, the caller, and the client address that login
/// throttling counts by.
public struct RichPushRequestContext: AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: AuthenticatedUser?
    public let clientAddress: String
    /// The connection the request came on, as ``UnauthenticatedConnections`` names it.
    let connection: ObjectIdentifier

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.identity = nil
        self.clientAddress = source.channel.remoteAddress?.ipAddress ?? "local"
        self.connection = ObjectIdentifier(connectionOf: source.channel)
    }

    /// Image uploads are limited by their own setting, checked before the body is read.
    public var maxUploadSize: Int { .max }

    /// Every JSON body is read strictly: an unknown or mistyped field is refused, never ignored.
    public var requestDecoder: some RequestDecoder { StrictRequestDecoder() }
    /// Answers in JSON with sorted keys and unescaped slashes, as the API's documents and errors are written.
    public var responseEncoder: JSONEncoder { .compact }
}
