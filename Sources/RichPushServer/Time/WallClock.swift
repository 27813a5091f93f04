public import Foundation

/// The gateway's current time: when a scheduled notification falls due, when a retry may go.
///
/// swift-clocks' clocks measure durations on a monotonic line; due times here are calendar dates stored in the
/// database, so the gateway reads a date, and a test moves that date forward instead of waiting for it.
public protocol WallClock: Sendable {
    var now: Date { get }
}

/// The system's time.
public struct SystemWallClock: WallClock {
    public init() {}

    public var now: Date { .now }
}
