import Synchronization

/// A count that a test's concurrent tasks and callbacks add to.
public final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    /// Adds one and returns the count before it.
    @discardableResult
    public func add() -> Int {
        count.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    public var value: Int { count.load(ordering: .relaxed) }
}
