import Synchronization

/// Wakes one waiting task early: a dispatcher when work arrives.
///
/// A ring with nobody waiting is remembered, so a ring between two waits is never lost.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
        var waitCancelled = false
    }

    private let state = Mutex(State())

    func ring() {
        state.withLock { state in
            state.rung = true
            state.waiter?.resume()
            state.waiter = nil
        }
    }

    /// Rings for good: every later wait returns at once.
    func close() {
        state.withLock { state in
            state.closed = true
            state.rung = true
            state.waiter?.resume()
            state.waiter = nil
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Waits until rung or until `duration` passed; returns whether it was rung.
    @discardableResult
    func wait(upTo duration: Duration) async -> Bool {
        if consumeRing() { return true }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.waitForRing() }
            await group.next()
            group.cancelAll()
        }
        return consumeRing()
    }

    private func consumeRing() -> Bool {
        state.withLock { state in
            defer { if !state.closed { state.rung = false } }
            return state.rung
        }
    }

    private func waitForRing() async {
        state.withLock { $0.waitCancelled = false }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.rung || state.waitCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                state.waitCancelled = true
                state.waiter?.resume()
                state.waiter = nil
            }
        }
    }
}
