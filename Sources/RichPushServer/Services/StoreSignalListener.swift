import Logging
import RichPushStore
import ServiceLifecycle
import Synchronization

/// On a store shared by several gateway processes: hears what the others announce and wakes this process's
/// streams and dispatcher, as the process that made the change woke its own.
///
/// A signal names the user whose streams to wake, never the events: the streams read those themselves, so replay
/// and live delivery keep one source of truth. While the connection that listens is down nothing is heard: every
/// stream and the dispatcher are woken when it comes back, to look for what they missed.
struct StoreSignalListener: Service {
    let store: Store
    let broadcaster: EventBroadcaster
    let dispatcherDoorbell: Doorbell
    let logger: Logger
    /// How long to wait before listening again after the connection was lost.
    var reconnectDelay: Duration = .seconds(1)

    func run() async throws {
        let pending = PendingOwners()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listen(into: pending) }
                group.addTask { await wakeOwners(of: pending) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private func listen(into pending: PendingOwners) async {
        while !Task.isCancelled {
            do {
                try await store.listen { signal in
                    switch signal {
                    case .events(let owner): pending.add(owner)
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

    /// Takes the users heard of so far in one go, so a burst of signals wakes each stream once.
    private func wakeOwners(of pending: PendingOwners) async {
        while !Task.isCancelled {
            await pending.doorbell.wait(upTo: .seconds(60))
            let owners = pending.takeAll()
            if !owners.isEmpty { broadcaster.notify(owners) }
        }
    }
}

/// Users with new events whose streams are not yet woken.
private final class PendingOwners: Sendable {
    private let owners = Mutex<Set<String>>([])
    let doorbell = Doorbell()

    func add(_ owner: String) {
        owners.withLock { _ = $0.insert(owner) }
        doorbell.ring()
    }

    func takeAll() -> Set<String> {
        owners.withLock { owners in
            defer { owners.removeAll() }
            return owners
        }
    }
}
