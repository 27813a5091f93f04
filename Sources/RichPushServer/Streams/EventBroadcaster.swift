import Foundation
import Synchronization

/// Tells open streams of a user that new events are in the store; the events themselves are always read from the
/// store, so live delivery and replay share one source of truth.
///
/// Each user has at most `maximumStreamsPerUser` streams: a new one closes the oldest, so a client that leaks
/// connections (or a stolen password) cannot hold a process's descriptors and memory.
final class EventBroadcaster: Sendable {
    private struct Subscription {
        var id: UUID
        var doorbell: Doorbell
    }

    let maximumStreamsPerUser: Int
    /// Each user's streams, oldest first.
    private let subscriptions = Mutex<[String: [Subscription]]>([:])

    init(maximumStreamsPerUser: Int = .max) {
        precondition(maximumStreamsPerUser > 0, "a user needs room for one stream")
        self.maximumStreamsPerUser = maximumStreamsPerUser
    }

    /// Registers a stream of `username`; ring it with ``notify(_:)``, unregister with ``unsubscribe(_:id:)``. The
    /// doorbell of a stream closed to make room is closed: its stream ends.
    func subscribe(_ username: String) -> (id: UUID, doorbell: Doorbell) {
        let subscription = Subscription(id: UUID(), doorbell: Doorbell())
        let evicted = subscriptions.withLock { subscriptions in
            var streams = subscriptions[username, default: []]
            streams.append(subscription)
            let evicted = streams.prefix(max(0, streams.count - maximumStreamsPerUser))
            streams.removeFirst(evicted.count)
            subscriptions[username] = streams
            return Array(evicted)
        }
        for stream in evicted { stream.doorbell.close() }
        return (subscription.id, subscription.doorbell)
    }

    func unsubscribe(_ username: String, id: UUID) {
        subscriptions.withLock { subscriptions in
            subscriptions[username]?.removeAll { $0.id == id }
            if subscriptions[username]?.isEmpty == true { subscriptions[username] = nil }
        }
    }

    func notify(_ usernames: some Sequence<String>) {
        let rings = subscriptions.withLock { subscriptions in usernames.flatMap { subscriptions[$0] ?? [] } }
        for stream in rings { stream.doorbell.ring() }
    }

    /// Wakes every open stream, to look for events it may have missed.
    func notifyAll() {
        let rings = subscriptions.withLock { subscriptions in subscriptions.values.flatMap { $0 } }
        for stream in rings { stream.doorbell.ring() }
    }

    /// How many streams are open.
    var streamCount: Int { subscriptions.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
