public import Foundation

/// Failed sign-ins by throttle key (a username's, an address's), shared by every process, so a guesser spread over
/// several gateways is throttled as one.
public protocol SignInFailureRepository: Sendable {
    /// Records a failed sign-in against each of `keys` and returns, for each key, the times of its failures after
    /// `since`, oldest first: those of every process sharing the store.
    func record(keys: [String], at now: Date, since: Date) async throws -> [String: [Date]]
    /// Forgets the failures of `keys`: the right password was given.
    func clear(keys: [String]) async throws
    /// The keys with at least `limit` failures after `since`, each with the times of those failures, oldest first.
    func throttledKeys(since: Date, limit: Int) async throws -> [String: [Date]]
    /// Removes failures from before `date`, which no longer count; returns how many.
    @discardableResult
    func prune(before date: Date) async throws -> Int
}
