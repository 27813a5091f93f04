import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Whether the PostgreSQL server answers, as this process last found it, and the probe that finds out.
///
/// PostgresNIO's pool keeps a request for a connection queued while it cannot connect, for up to a minute, so a
/// gateway whose database stopped held every request that long: `/health/ready` and a `POST` both answered only
/// once the server was back. The engine asks here first instead. While the server is known to be unreachable an
/// operation fails at once with ``StoreError/unavailable``, and the operations already waiting for a connection are
/// failed the moment that is known. A lost connection, or a wait for a connection longer than ``suspicionDelay``,
/// makes the server suspect: a probe then connects on its own, outside the pool, every ``probeInterval`` until the
/// server answers. Only the probe's verdict fails anything, and only once ``probesToDecide`` probes in a row found no
/// server, so a pool that is merely busy (every connection leased under load) makes operations wait as before, and a
/// probe that a loaded machine kept from connecting in time fails nothing.
final class PostgresReachability: Sendable {
    enum Phase: Equatable {
        case reachable
        /// A probe runs; operations go on meanwhile.
        case suspect
        /// The last probe could not connect; another runs after ``probeInterval``.
        case unreachable
    }

    private struct State {
        var phase = Phase.reachable
        var waiting: [Int: ConnectionHandOff] = [:]
        var nextWaiter = 0
    }

    /// How long an operation waits for a connection before the server is probed.
    static let suspicionDelay: TimeAmount = .seconds(1)
    static let probeInterval: Duration = .milliseconds(500)
    static let probesToDecide = 2

    private let state = Mutex(State())
    /// Connects to the server outside the pool and says whether it answered.
    private let probe: @Sendable () async -> Bool
    /// Called when the server answers again after a probe found it unreachable.
    private let recovered: @Sendable () -> Void
    private let logger: Logger

    init(probe: @escaping @Sendable () async -> Bool, recovered: @escaping @Sendable () -> Void, logger: Logger) {
        self.probe = probe
        self.recovered = recovered
        self.logger = logger
    }

    var phase: Phase { state.withLock { $0.phase } }

    /// Throws ``StoreError/unavailable`` while the server is known to be unreachable.
    func admit() throws(StoreError) {
        if phase == .unreachable { throw .unavailable }
    }

    /// Waits for `handOff`'s connection: fails it if the server turns out unreachable meanwhile, and probes the server
    /// if the wait lasts longer than ``suspicionDelay``.
    func connection(of handOff: ConnectionHandOff) async throws -> PostgresConnection {
        let waiter = state.withLock { state in
            defer { state.nextWaiter += 1 }
            state.waiting[state.nextWaiter] = handOff
            return state.nextWaiter
        }
        let suspicion = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: Self.suspicionDelay) { self.suspect() }
        defer {
            suspicion.cancel()
            _ = state.withLock { $0.waiting.removeValue(forKey: waiter) }
        }
        if phase == .unreachable { handOff.fail(StoreError.unavailable) }
        return try await handOff.connection()
    }

    /// Something went wrong that a server gone away would explain: probe it, unless a probe already runs.
    func suspect() {
        let starts = state.withLock { state in
            guard state.phase == .reachable else { return false }
            state.phase = .suspect
            return true
        }
        guard starts else { return }
        Task { await probeUntilAnswered() }
    }

    private func probeUntilAnswered() async {
        var wasUnreachable = false
        var failedProbes = 0
        while await !probe() {
            failedProbes += 1
            guard failedProbes >= Self.probesToDecide else {
                try? await Task.sleep(for: Self.probeInterval)
                continue
            }
            let waiting = state.withLock { state in
                state.phase = .unreachable
                return Array(state.waiting.values)
            }
            if !wasUnreachable {
                logger.error("the PostgreSQL server does not answer; requests that need the store answer 503 until it does")
                wasUnreachable = true
            }
            for handOff in waiting { handOff.fail(StoreError.unavailable) }
            try? await Task.sleep(for: Self.probeInterval)
        }
        if wasUnreachable {
            recovered()
            logger.notice("the PostgreSQL server answers again")
        }
        state.withLock { $0.phase = .reachable }
    }
}

/// A connection leased by a task of its own and handed to the operation that waits for it, which can so stop waiting
/// (the server is unreachable) without the pool's lease having to end first; the leasing task holds the connection
/// until the operation gives it back.
final class ConnectionHandOff: Sendable {
    private struct State {
        var result: Result<PostgresConnection, any Error>?
        var taker: CheckedContinuation<PostgresConnection, any Error>?
        var holder: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// The leasing task's: hands `connection` over and returns once it is given back, or at once when the operation
    /// stopped waiting.
    func hold(_ connection: PostgresConnection) async {
        await withCheckedContinuation { (holder: CheckedContinuation<Void, Never>) in
            let handed = state.withLock { state -> Bool in
                guard state.result == nil else { return false }
                state.result = .success(connection)
                state.taker?.resume(returning: connection)
                state.taker = nil
                state.holder = holder
                return true
            }
            if !handed { holder.resume() }
        }
    }

    /// No connection will come: the lease failed, or the server is unreachable.
    func fail(_ error: any Error) {
        state.withLock { state in
            guard state.result == nil else { return }
            state.result = .failure(error)
            state.taker?.resume(throwing: error)
            state.taker = nil
        }
    }

    /// The operation's: waits for the connection or the failure.
    fileprivate func connection() async throws -> PostgresConnection {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (taker: CheckedContinuation<PostgresConnection, any Error>) in
                state.withLock { state in
                    if let result = state.result {
                        taker.resume(with: result)
                    } else {
                        state.taker = taker
                    }
                }
            }
        } onCancel: {
            fail(CancellationError())
        }
    }

    /// The operation is done with the connection: the leasing task returns it to the pool.
    func giveBack() {
        state.withLock { state in
            state.holder?.resume()
            state.holder = nil
        }
    }
}
