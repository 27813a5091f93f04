/// The notifications whose outbox a POST began and this process completes after answering it: the POST answers once
/// its first chunk is written, and the ``OutboxCompleter`` writes the rest while the dispatcher sends.
struct OutboxQueue: Sendable {
    let ids: AsyncStream<Int64>
    private let continuation: AsyncStream<Int64>.Continuation

    init() {
        (ids, continuation) = AsyncStream.makeStream()
    }

    func add(_ id: Int64) {
        continuation.yield(id)
    }
}
