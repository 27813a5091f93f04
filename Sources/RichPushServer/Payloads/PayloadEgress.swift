import Foundation
import RichPushCore
import Synchronization

/// The bytes of payloads this process sent over the last second, kept in tenths of a second of the gateway's clock:
/// what `--payload-egress-limit` is held to.
final class PayloadEgress: Sendable {
    private struct State {
        /// The bytes sent in each of the last ten tenths of a second, by the tenth's number modulo ten.
        var tenths = [Int](repeating: 0, count: 10)
        /// The tenth of a second since 1970 the newest slot counts.
        var current: Int64 = 0

        /// Moves on to `tenth`, emptying the slots of the tenths that passed since the last.
        mutating func move(to tenth: Int64) {
            guard tenth > current else { return }
            for passed in (max(current + 1, tenth - 9))...tenth { tenths[Int(passed % 10)] = 0 }
            current = tenth
        }
    }

    private let state = Mutex(State())
    private let clock: any WallClock

    init(clock: any WallClock) {
        self.clock = clock
    }

    /// Counts `bytes` of a payload's body, sent now.
    func add(_ bytes: Int) {
        guard bytes > 0 else { return }
        let tenth = Self.tenth(of: clock.now)
        state.withLock { state in
            state.move(to: tenth)
            state.tenths[Int(tenth % 10)] += bytes
        }
    }

    /// The bytes sent within the last second.
    var bytesPerSecond: Int {
        let tenth = Self.tenth(of: clock.now)
        return state.withLock { state in
            state.move(to: tenth)
            return state.tenths.reduce(0, +)
        }
    }

    private static func tenth(of instant: Date) -> Int64 {
        Int64((instant.timeIntervalSince1970 * 10).rounded(.down))
    }
}
