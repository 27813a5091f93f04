import Synchronization

/// What wakes one open stream: new events of its user, the process-wide heartbeat, or its end.
///
/// A stream waits on one continuation, or a callback, and nothing else: no timer and no child task per stream, so ten
/// thousand idle streams cost their connections and little more. What arrives while nobody waits is remembered.
final class StreamSignal: Sendable {
    enum Wake: Equatable {
        /// The user has new events in the store.
        case events
        /// Time for a heartbeat.
        case heartbeat
        /// The stream must end: the process is shutting down, or a newer stream of its user took its place.
        case closed
    }

    private struct State {
        var events = false
        var heartbeat = false
        var closed = false
        var waiter: CheckedContinuation<Wake, Never>?
        /// Called once, instead of a waiter resumed, when the next reason to wake arrives.
        var whenReady: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func ringEvents() { signal { $0.events = true } }

    func ringHeartbeat() { signal { $0.heartbeat = true } }

    func close() { signal { $0.closed = true } }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether a stream waits on the signal now.
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Waits for the next reason to wake, events before a heartbeat; a cancelled task wakes as closed.
    func wait() async -> Wake {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                let wake = state.withLock { state -> Wake? in
                    if Task.isCancelled { state.closed = true }
                    if let wake = Self.take(&state) { return wake }
                    state.waiter = continuation
                    return nil
                }
                if let wake { continuation.resume(returning: wake) }
            }
        } onCancel: {
            close()
        }
    }

    /// The reason to wake now, if there is one; else nil, and `whenReady` is called once when one arrives. For a
    /// stream that waits without a task: nothing of it runs between its events.
    func next(orWhenReady whenReady: @escaping @Sendable () -> Void) -> Wake? {
        state.withLock { state in
            if let wake = Self.take(&state) { return wake }
            state.whenReady = whenReady
            return nil
        }
    }

    private func signal(_ change: (inout State) -> Void) {
        let (resumption, whenReady) = state.withLock { state -> ((CheckedContinuation<Wake, Never>, Wake)?, (@Sendable () -> Void)?) in
            change(&state)
            let whenReady = state.whenReady
            state.whenReady = nil
            guard let waiter = state.waiter, let wake = Self.take(&state) else { return (nil, whenReady) }
            state.waiter = nil
            return ((waiter, wake), whenReady)
        }
        if let (waiter, wake) = resumption { waiter.resume(returning: wake) }
        whenReady?()
    }

    /// The reason to wake now, consumed; closing is never consumed.
    private static func take(_ state: inout State) -> Wake? {
        if state.closed { return .closed }
        if state.events {
            state.events = false
            return .events
        }
        if state.heartbeat {
            state.heartbeat = false
            return .heartbeat
        }
        return nil
    }
}
