import Foundation
import Synchronization

/// Tells open streams of a user that new events are in the store; the events themselves are always read from the
/// store, so live delivery and replay share one source of truth.
///
/// Each user has at most `maximumStreamsPerUser` streams: a new one closes the oldest, so a client that leaks
/// connections (or a stolen password) cannot hold a process's descriptors and memory.
final class EventBroadcaster: Sendable {
    private struct Subscription {
        var id: UInt64
        var signal: StreamSignal
    }

    private struct State {
        /// Each user's streams, oldest first.
        var streams: [String: [Subscription]] = [:]
        /// Each user's count of notices, for the users with streams: see ``generation(of:)``.
        var generations: [String: UInt64] = [:]
        /// Counts every notice and every new stream, so a user's generation never goes back when its streams close
        /// and open again.
        var lastGeneration: UInt64 = 0
        var nextId: UInt64 = 0
    }

    let maximumStreamsPerUser: Int
    private let state = Mutex(State())

    init(maximumStreamsPerUser: Int = .max) {
        precondition(maximumStreamsPerUser > 0, "a user needs room for one stream")
        self.maximumStreamsPerUser = maximumStreamsPerUser
    }

    /// Registers a stream of `username`; wake it with ``notify(_:)``, unregister with ``unsubscribe(_:id:)``. The
    /// signal of a stream closed to make room is closed: its stream ends.
    func subscribe(_ username: String) -> (id: UInt64, signal: StreamSignal) {
        let signal = StreamSignal()
        let (id, evicted) = state.withLock { state in
            state.nextId += 1
            var streams = state.streams[username, default: []]
            streams.append(Subscription(id: state.nextId, signal: signal))
            let evicted = streams.prefix(max(0, streams.count - maximumStreamsPerUser))
            streams.removeFirst(evicted.count)
            state.streams[username] = streams
            // A new stream's first read is never one that began before it: events stored while the user had no
            // stream here were noticed by nobody.
            state.lastGeneration += 1
            state.generations[username] = state.lastGeneration
            return (state.nextId, Array(evicted))
        }
        for stream in evicted { stream.signal.close() }
        return (id, signal)
    }

    func unsubscribe(_ username: String, id: UInt64) {
        state.withLock { state in
            guard var streams = state.streams[username] else { return }
            if let index = streams.firstIndex(where: { $0.id == id }) { streams.remove(at: index) }
            state.streams[username] = streams.isEmpty ? nil : streams
            if streams.isEmpty { state.generations[username] = nil }
        }
    }

    func notify(_ usernames: some Sequence<String>) {
        let signals = state.withLock { state in
            usernames.flatMap { username -> [StreamSignal] in
                state.lastGeneration += 1
                guard let streams = state.streams[username] else { return [] }
                state.generations[username] = state.lastGeneration
                return streams.map(\.signal)
            }
        }
        for signal in signals { signal.ringEvents() }
    }

    /// Wakes every open stream, to look for events it may have missed.
    func notifyAll() {
        notify(state.withLock { Array($0.streams.keys) })
    }

    /// Tells every open stream it is time for a heartbeat.
    func beat() {
        let signals = state.withLock { state in state.streams.values.flatMap { $0.map(\.signal) } }
        for signal in signals { signal.ringHeartbeat() }
    }

    /// Grows with each notice to `username`'s streams. A read of the store that began at or after a generation sees
    /// every event its notice was about, so streams woken by one notice may share one read.
    func generation(of username: String) -> UInt64 {
        state.withLock { $0.generations[username] ?? $0.lastGeneration }
    }

    /// How many streams are open.
    var streamCount: Int { state.withLock { $0.streams.values.reduce(0) { $0 + $1.count } } }
}
