import Logging
import RichPushStore
import ServiceLifecycle
import Synchronization

/// On a store shared by several gateway processes: hears what the others announce and wakes this process's
/// streams and dispatcher, as the process that made the change woke its own.
///
/// A signal names only an event; the event's row, read from the store, names the user whose streams to wake, and
/// the streams read the events themselves, so replay and live delivery keep one source of truth. While the
/// connection that listens is down nothing is heard: every stream and the dispatcher are woken when it comes back,
/// to look for what they missed.
struct StoreSignalListener: Service {
    let store: Store
    let broadcaster: EventBroadcaster
    let dispatcherDoorbell: Doorbell
    let logger: Logger
    /// How long to wait before listening again after the connection was lost.
    var reconnectDelay: Duration = .seconds(1)

    func run() async throws {
        let pending = PendingEvents()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listen(into: pending) }
                group.addTask { await wakeOwners(of: pending) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private func listen(into pending: PendingEvents) async {
        while !Task.isCancelled {
            do {
                try await store.listen { signal in
                    switch signal {
                    case .event(let id): pending.add(id)
                    case .deliveriesDue: dispatcherDoorbell.ring()
                    }
                }
            } catch {
                guard !Task.isCancelled else { return }
                logger.warning("lost the store's signals; listening again", metadata: ["error": "\(error)"])
            }
            broadcaster.notifyAll()
            dispatcherDoorbell.ring()
            try? await Task.sleep(for: reconnectDelay)
        }
    }

    /// Takes the event ids heard so far in one go, so a burst of signals costs one query.
    private func wakeOwners(of pending: PendingEvents) async {
        while !Task.isCancelled {
            await pending.doorbell.wait(upTo: .seconds(60))
            let ids = pending.takeAll()
            guard !ids.isEmpty else { continue }
            do {
                broadcaster.notify(try await store.eventOwners(ids: ids))
            } catch {
                logger.warning("could not read the owners of new events; waking every stream", metadata: ["error": "\(error)"])
                broadcaster.notifyAll()
            }
        }
    }
}

/// Event ids heard but not yet looked up.
private final class PendingEvents: Sendable {
    private let ids = Mutex<[Int64]>([])
    let doorbell = Doorbell()

    func add(_ id: Int64) {
        ids.withLock { $0.append(id) }
        doorbell.ring()
    }

    func takeAll() -> [Int64] {
        ids.withLock { ids in
            defer { ids.removeAll() }
            return ids
        }
    }
}
