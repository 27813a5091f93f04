import Synchronization

/// What one connection of a session can take, readable from any thread: whether it still takes new requests, and
/// how many streams it may have open.
final class ConnectionHealth: Sendable {
    private let usable = Atomic<Bool>(true)
    private let reason = Mutex<(any Error)?>(nil)
    private let limit: Atomic<Int>
    private let advertised = Atomic<Int>(-1)

    /// A connection that may open `streamLimit` streams until the server says otherwise.
    init(streamLimit: Int) {
        limit = Atomic(streamLimit)
    }

    var isUsable: Bool { usable.load(ordering: .acquiring) }

    /// Why the connection stopped, when an error stopped it.
    var failure: (any Error)? { reason.withLock { $0 } }

    func retire(because error: (any Error)? = nil) {
        if let error { reason.withLock { $0 = $0 ?? error } }
        usable.store(false, ordering: .releasing)
    }

    /// The streams the connection may have open: the session's own limit, lowered to the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS whenever it sends one (APNs has been seen to lower it to 1).
    var streamLimit: Int { limit.load(ordering: .relaxed) }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS, once it has sent one.
    var advertisedLimit: Int? {
        let value = advertised.load(ordering: .relaxed)
        return value < 0 ? nil : value
    }

    /// The server allows `advertised` streams, and the session at most `own`.
    func allow(_ advertised: Int, own: Int) {
        self.advertised.store(advertised, ordering: .relaxed)
        limit.store(min(own, advertised), ordering: .relaxed)
    }
}
