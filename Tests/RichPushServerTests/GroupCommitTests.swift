import Synchronization
import Testing

@testable import RichPushServer

/// Writes that arrive while one is being written go into the next write together.
@Suite("Group commits")
struct GroupCommitTests {
    /// A store whose writes each wait until the test lets them end, and which keeps every batch it was given.
    final class GatedStore: Sendable {
        let batches = Mutex<[[Int]]>([])
        let failing = Atomic<Bool>(false)
        /// One element as each write starts waiting at its gate.
        let writesStarted = AsyncStream<Void>.makeStream()
        private let gates = Mutex<[CheckedContinuation<Void, Never>]>([])

        struct Refused: Error {}

        func write(_ batch: [Int]) async throws {
            await withCheckedContinuation { gate in
                gates.withLock { $0.append(gate) }
                writesStarted.continuation.yield()
            }
            batches.withLock { $0.append(batch) }
            if failing.load(ordering: .relaxed) { throw Refused() }
        }

        func openNextGate() {
            gates.withLock { $0.removeFirst() }.resume()
        }
    }

    @Test func itemsThatArriveDuringAWriteGoTogetherIntoTheNext() async throws {
        let store = GatedStore()
        var started = store.writesStarted.stream.makeAsyncIterator()
        let writes = GroupCommit<Int> { try await store.write($0) }
        writes.enqueue([1])
        await started.next()
        writes.enqueue([2])
        writes.enqueue([3, 4])
        store.openNextGate()
        await started.next()
        store.openNextGate()
        await writes.flushed()
        #expect(store.batches.withLock { $0 } == [[1], [2, 3, 4]])
    }

    @Test func aCommitReturnsOnceItsBatchIsWrittenAndThrowsWhatTheWriteThrew() async throws {
        let store = GatedStore()
        var started = store.writesStarted.stream.makeAsyncIterator()
        let writes = GroupCommit<Int> { try await store.write($0) }
        store.failing.store(true, ordering: .relaxed)
        let refused = Task { try await writes.commit([7]) }
        await started.next()
        store.openNextGate()
        await #expect(throws: GatedStore.Refused.self) { try await refused.value }
        store.failing.store(false, ordering: .relaxed)
        let accepted = Task { try await writes.commit([8]) }
        await started.next()
        store.openNextGate()
        try await accepted.value
        #expect(store.batches.withLock { $0 } == [[7], [8]])
    }
}
