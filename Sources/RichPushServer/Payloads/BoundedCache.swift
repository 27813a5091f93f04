import Foundation
import Synchronization

/// A thread-safe map with an optional time to live and a bound on its cost; when over the bound the oldest
/// insertions go first.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: (value: Value, storedAt: Date, cost: Int)] = [:]
        var order: [Key] = []
        var orderStart = 0
        var totalCost = 0
    }

    let timeToLive: TimeInterval?
    let maximumCost: Int
    private let state = Mutex(State())

    /// - Parameters:
    ///   - timeToLive: how long a value may be served; nil for values that never change.
    ///   - maximumCost: the bound on the sum of the costs given to ``set(_:_:cost:now:)`` (1 each by default).
    init(timeToLive: TimeInterval? = nil, maximumCost: Int) {
        self.timeToLive = timeToLive
        self.maximumCost = maximumCost
    }

    subscript(key: Key) -> Value? {
        value(for: key)
    }

    /// The value for `key`, if it is still fresh `now` (the time is read only by a cache with a time to live).
    func value(for key: Key, now: Date? = nil) -> Value? {
        let now = timeToLive == nil ? nil : now ?? .now
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            if let timeToLive, let now, now.timeIntervalSince(entry.storedAt) >= timeToLive { return nil }
            return entry.value
        }
    }

    func set(_ key: Key, _ value: Value, cost: Int = 1, now: Date = .now) {
        guard cost <= maximumCost else { return }
        state.withLock { state in
            if let old = state.entries.updateValue((value, now, cost), forKey: key) {
                state.totalCost -= old.cost
            } else {
                state.order.append(key)
            }
            state.totalCost += cost
            while state.totalCost > maximumCost, state.orderStart < state.order.count {
                let oldest = state.order[state.orderStart]
                state.orderStart += 1
                if oldest != key, let removed = state.entries.removeValue(forKey: oldest) {
                    state.totalCost -= removed.cost
                }
            }
            if state.orderStart > 1024, state.orderStart * 2 > state.order.count {
                state.order.removeFirst(state.orderStart)
                state.orderStart = 0
            }
        }
    }

    func remove(_ key: Key) {
        state.withLock { state in
            if let removed = state.entries.removeValue(forKey: key) { state.totalCost -= removed.cost }
        }
    }
}
