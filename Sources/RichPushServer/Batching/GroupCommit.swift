import Synchronization

/// Writes that arrive while a batch is being written wait, and go into the next write together: a burst costs one
/// transaction (one disk flush) per batch instead of one per item, and an idle store gets each item at once.
final class GroupCommit<Item: Sendable>: Sendable {
    private struct State {
        var pending: [Item] = []
        /// Those waiting for the pending items to be written.
        var waiting: [CheckedContinuation<Void, any Error>] = []
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
    /// what is pending now, not for the writer to run out of work, which a steady stream of items would never let it.
    func flushed() async {
        if state.withLock({ $0.writer == nil && $0.pending.isEmpty }) { return }
        try? await commit([])
    }

    private func startWriter(_ state: inout State) {
        if state.writer == nil {
            state.writer = Task { await self.writeBatches() }
        }
    }

    private func writeBatches() async {
        while true {
            let (batch, waiting) = state.withLock { state in
                let taken = (state.pending, state.waiting)
                state.pending.removeAll(keepingCapacity: true)
                state.waiting.removeAll(keepingCapacity: true)
                if taken.0.isEmpty && taken.1.isEmpty { state.writer = nil }
                return taken
            }
            if batch.isEmpty && waiting.isEmpty { return }
            do {
                try await write(batch)
                for written in waiting { written.resume() }
            } catch {
                for written in waiting { written.resume(throwing: error) }
            }
        }
    }
}
