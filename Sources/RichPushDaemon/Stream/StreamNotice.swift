import RichPushCore

/// What the stream thread hands to the daemon's loop, in the order it happened.
enum StreamNotice: Sendable, Equatable {
    /// An event of the user's stream.
    case event(StreamEvent)
    /// An event this daemon does not know; only its cursor matters.
    case unknown(cursor: Int64)
    /// The gateway has nothing more to replay: a heartbeat came, or the stream went quiet after connecting.
    case caughtUp
    /// The daemon cannot go on: the credentials were rejected, or `--once` could not reach the gateway.
    case fatal(String, exitCode: Int32)
}
