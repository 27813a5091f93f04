public import RichPushCore

extension NotificationState {
    /// Whether the state can no longer change by itself: `scheduled` and `sending` still move.
    public var isFinal: Bool {
        switch self {
        case .scheduled, .sending: false
        case .delivered, .partial, .failed, .expired, .canceled: true
        }
    }
}
