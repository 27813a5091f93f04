public import Foundation
public import RichPushServer
import Synchronization

/// The system's time moved forward by what a test advanced it: everything that waits on real time (timeouts,
/// polling) still runs, while a due time hours ahead arrives at once. A stopped clock moves only when advanced, for a
/// test whose answer depends on how much time passed between its steps.
public final class AdvancedWallClock: WallClock {
    private let offset = Mutex<TimeInterval>(0)
    /// The instant a stopped clock stays at until advanced; nil for one that runs on with the system's.
    private let stoppedAt: Date?

    public init(stopped: Bool = false) {
        stoppedAt = stopped ? .now : nil
    }

    public var now: Date { (stoppedAt ?? .now) + offset.withLock { $0 } }

    public func advance(by interval: TimeInterval) {
        offset.withLock { $0 += interval }
    }
}
