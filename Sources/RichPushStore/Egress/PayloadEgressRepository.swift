public import Foundation

/// What each gateway process sharing the store serves of payloads, so that a limit on their egress
/// (`--payload-egress-limit`) holds for all of them together.
public protocol PayloadEgressRepository: Sendable {
    /// Records `bytesPerSecond` as what process `process` serves at `now`, and answers what the other processes
    /// recorded within `freshFor` before `now` serve together; a process that stopped recording falls out of the sum.
    func exchange(process: String, bytesPerSecond: Int, now: Date, freshFor: TimeInterval) async throws -> Int
}
