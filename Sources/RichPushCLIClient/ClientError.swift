/// Why a conversation with the gateway failed, as a sentence for the person at the terminal.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The gateway answered with an error body: `{"error": {"status", "code", "message"}}`.
    case refused(status: Int, code: String, message: String)
    /// The gateway could not be reached, or did not answer in time.
    case unreachable(server: String, reason: String)
    /// Something answered, but not with the gateway's API.
    case unexpectedAnswer(String)

    public var description: String {
        switch self {
        case .refused(_, _, let message): message
        case .unreachable(let server, let reason): "Cannot reach the gateway at \(server): \(reason)."
        case .unexpectedAnswer(let reason): reason
        }
    }
}

/// A command line that cannot run as given; the command exits with the usage status.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
