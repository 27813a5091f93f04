import Synchronization

/// Writes that arrive while a batch is being written wait, and go into the next write together: a burst costs one
/// transaction (one disk flush) per batch instead of one per item, and an idle store gets each item at once.
final class GroupCommit<Item: Sendable>: Sendable {
    private struct State {
        var pending: [Item] = []
        /// Those waiting for the pending items to be written.
        var waiting: [CheckedContinuation<Void, any Error>] = []
        /// Those waiting, without items of their own, for the pending items to be written.
        var flushingPending: [CheckedContinuation<Void, Never>] = []
        /// Those waiting, without items of their own, for the batch being written.
        var flushingCurrent: [CheckedContinuation<Void, Never>] = []
        /// Writes batches while there are any; nil when idle.
        var writer: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let write: @Sendable ([Item]) async throws -> Void

    /// `write` stores one batch, in one transaction.
    init(write: @escaping @Sendable ([Item]) async throws -> Void) {
        self.write = write
    }

    /// Adds `items` to the next batch and returns once it is written; throws what its write threw.
    func commit(_ items: [Item]) async throws {
        try await withCheckedThrowingContinuation { written in
            state.withLock { state in
                state.pending += items
                state.waiting.append(written)
                startWriter(&state)
            }
        }
    }

    /// Adds `items` to the next batch without waiting for it.
    func enqueue(_ items: [Item]) {
        state.withLock { state in
            state.pending += items
            startWriter(&state)
        }
    }

    /// Returns once everything added before the call is written, or failed to be: it waits for the batch that takes
    /// what is pending now (or the one being written, when nothing is pending), not for the writer to run out of
    /// work, which a steady stream of items would never let it do.
    func flushed() async {
        await withCheckedContinuation { (flushed: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.pending.isEmpty {
                    state.flushingPending.append(flushed)
                } else if state.writer != nil {
                    state.flushingCurrent.append(flushed)
                } else {
                    return true
                }
                return false
            }
            if done { flushed.resume() }
        }
    }

    private func startWriter(_ state: inout State) {
        if state.writer == nil {
            state.writer = Task { await self.writeBatches() }
        }
    }

    private func writeBatches() async {
        while true {
            let (batch, waiting, flushing, idle) = state.withLock { state in
                let taken = (state.pending, state.waiting)
                let idle = taken.0.isEmpty && taken.1.isEmpty
                // Those who waited for the batch just written are done; those of the pending items wait for the next.
                let written = state.flushingCurrent
                state.flushingCurrent = state.flushingPending
                state.pending.removeAll(keepingCapacity: true)
                state.waiting.removeAll(keepingCapacity: true)
                state.flushingPending.removeAll(keepingCapacity: true)
                if idle { state.writer = nil }
                return (taken.0, taken.1, written, idle)
            }
            for flushed in flushing { flushed.resume() }
            if idle { return }
            do {
                try await write(batch)
                for written in waiting { written.resume() }
            } catch {
                for written in waiting { written.resume(throwing: error) }
            }
        }
    }
}
