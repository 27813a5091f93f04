public import Foundation
public import RichPushServer
import Synchronization

/// The system's time moved forward by what a test advanced it: everything that waits on real time (timeouts,
/// polling) still runs, while a due time hours ahead arrives at once.
public final class AdvancedWallClock: WallClock {
    private let offset = Mutex<TimeInterval>(0)

    public init() {}

    public var now: Date { .now + offset.withLock { $0 } }

    public func advance(by interval: TimeInterval) {
        offset.withLock { $0 += interval }
    }
}
