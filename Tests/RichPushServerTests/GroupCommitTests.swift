import Synchronization
import TestSupport
import Testing

@testable import RichPushServer

/// Writes that arrive while one is being written go into the next write together.
@Suite("Group commits")
struct GroupCommitTests {
    /// A store whose writes each wait until the test lets them end, and which keeps every batch it was given.
    final class GatedStore: Sendable {
        let batches = Mutex<[[Int]]>([])
        private let gates = Mutex<[CheckedContinuation<Void, Never>]>([])
        let failing = Atomic<Bool>(false)

        struct Refused: Error {}

        func write(_ batch: [Int]) async throws {
            await withCheckedContinuation { gate in gates.withLock { $0.append(gate) } }
            batches.withLock { $0.append(batch) }
            if failing.load(ordering: .relaxed) { throw Refused() }
        }

        var writesWaiting: Int { gates.withLock { $0.count } }

        func openNextGate() {
            gates.withLock { $0.removeFirst() }.resume()
        }
    }

    @Test func itemsThatArriveDuringAWriteGoTogetherIntoTheNext() async throws {
        let store = GatedStore()
        let writes = GroupCommit<Int> { try await store.write($0) }
        writes.enqueue([1])
        try #require(await eventually { store.writesWaiting == 1 })
        writes.enqueue([2])
        writes.enqueue([3, 4])
        store.openNextGate()
        try #require(await eventually { store.writesWaiting == 1 })
        store.openNextGate()
        await writes.flushed()
        #expect(store.batches.withLock { $0 } == [[1], [2, 3, 4]])
    }

    @Test func aCommitReturnsOnceItsBatchIsWrittenAndThrowsWhatTheWriteThrew() async throws {
        let store = GatedStore()
        let writes = GroupCommit<Int> { try await store.write($0) }
        store.failing.store(true, ordering: .relaxed)
        let refused = Task { try await writes.commit([7]) }
        try #require(await eventually { store.writesWaiting == 1 })
        store.openNextGate()
        await #expect(throws: GatedStore.Refused.self) { try await refused.value }
        store.failing.store(false, ordering: .relaxed)
        let accepted = Task { try await writes.commit([8]) }
        try #require(await eventually { store.writesWaiting == 1 })
        store.openNextGate()
        try await accepted.value
        #expect(store.batches.withLock { $0 } == [[7], [8]])
    }
}
