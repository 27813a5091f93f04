import Foundation
import Synchronization

/// Tells open streams of a user that new events are in the store; the events themselves are always read from the
/// store, so live delivery and replay share one source of truth.
final class EventBroadcaster: Sendable {
    private let doorbells = Mutex<[String: [UUID: Doorbell]]>([:])

    /// Registers a stream of `username`; ring it with ``notify(_:)``, unregister with ``unsubscribe(_:id:)``.
    func subscribe(_ username: String) -> (id: UUID, doorbell: Doorbell) {
        let id = UUID()
        let doorbell = Doorbell()
        doorbells.withLock { $0[username, default: [:]][id] = doorbell }
        return (id, doorbell)
    }

    func unsubscribe(_ username: String, id: UUID) {
        doorbells.withLock { doorbells in
            doorbells[username]?[id] = nil
            if doorbells[username]?.isEmpty == true { doorbells[username] = nil }
        }
    }

    func notify(_ usernames: some Sequence<String>) {
        let rings = doorbells.withLock { doorbells in usernames.flatMap { doorbells[$0].map { Array($0.values) } ?? [] } }
        for doorbell in rings { doorbell.ring() }
    }

    /// Wakes every open stream, to look for events it may have missed.
    func notifyAll() {
        let rings = doorbells.withLock { doorbells in doorbells.values.flatMap(\.values) }
        for doorbell in rings { doorbell.ring() }
    }

    /// How many streams are open.
    var streamCount: Int { doorbells.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
