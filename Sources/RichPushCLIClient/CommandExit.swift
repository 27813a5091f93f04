public import RichPushCore

/// The exit status of `richpush send` and `richpush status`, for scripts to branch on.
public enum CommandExit: Int32, Sendable, CaseIterable {
    /// Delivered: every delivery was accepted by its hub (or, for `send` without `--wait`, the gateway accepted the
    /// notification).
    case success = 0
    /// Not delivered: failed, expired or canceled.
    case notDelivered = 1
    /// Some deliveries were accepted and some failed.
    case partial = 2
    /// The gateway refused the request: wrong credentials, a role that may not, a corrupt image, an invalid audience;
    /// or, for `send --wait`, an audience that matched no device.
    case refused = 3
    /// The gateway could not be reached, or something else answered.
    case unreachable = 4
    /// Still scheduled or sending: `status` without `--wait`, or `--wait` past its `--timeout`.
    case pending = 5
    /// The command line is wrong (`EX_USAGE`, as for every flag error).
    case usage = 64

    /// The status a notification in `state` ends the command with.
    public init(_ state: NotificationState) {
        switch state {
        case .delivered: self = .success
        case .partial: self = .partial
        case .failed, .expired, .canceled: self = .notDelivered
        case .scheduled, .sending: self = .pending
        }
    }

    public init(_ error: ClientError) {
        switch error {
        case .refused: self = .refused
        case .unreachable, .unexpectedAnswer: self = .unreachable
        }
    }
}
