import Logging
import PostgresNIO
import Synchronization

/// The engine's `PostgresClient` and the task that runs it, replaced by a fresh pool when the server answers again
/// after an outage.
///
/// PostgresNIO's pool backs off between attempts to connect, by a quarter more after each failure, up to a minute: a
/// pool that failed for 30 s tries again only some 8 s after the server is back. A fresh pool connects at once.
final class PostgresPool: Sendable {
    private struct Running: Sendable {
        let client: PostgresClient
        /// The pool's run.
        let runner: Task<Void, Never>
    }

    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let current: Mutex<Running>
    /// Runs of replaced pools, cancelled and awaited again at close.
    private let retired = Mutex<[Task<Void, Never>]>([])

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        // The pool logs each failed attempt to connect at info: an outage's account is the engine's own, once.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .warning)
        self.logger = poolLogger
        current = Mutex(Self.start(configuration, logger: poolLogger))
    }

    private static func start(_ configuration: PostgresClient.Configuration, logger: Logger) -> Running {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // Started immediately so the pool is running before the first lease, which would otherwise warn.
        return Running(client: client, runner: Task.immediate { await client.run() })
    }

    var client: PostgresClient { current.withLock { $0.client } }

    /// Starts a fresh pool for the operations to come; the old one closes, and what still waits on it fails.
    func replace() {
        let fresh = Self.start(configuration, logger: logger)
        let old = current.withLock { running in
            defer { running = fresh }
            return running
        }
        old.runner.cancel()
        retired.withLock { $0.append(old.runner) }
    }

    /// Stops the pool: its connections close, and its run ends.
    ///
    /// PostgresNIO 1.33's pool has been seen to close every connection and then never return from its run: a test
    /// process's store closed, no connection left on the server, and the close waited for ever (about once in ten
    /// runs of the suite). A process stopping on SIGTERM would hang the same way. So the close waits for the run at
    /// most ``runEndLimit`` after cancelling it, and then leaves it.
    func close() async {
        let runners = [current.withLock { $0.runner }] + retired.withLock { $0 }
        for runner in runners { runner.cancel() }
        for runner in runners where await !Self.ended(runner, within: Self.runEndLimit) {
            logger.warning("the PostgreSQL pool's run did not end after its connections closed; the engine closes without it")
        }
    }

    /// Whether `task` ends within `limit`; one that does not is left as it is.
    static func ended(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
        let ended = AsyncStream<Bool>.makeStream()
        let end = Task {
            await task.value
            ended.continuation.yield(true)
        }
        let timeout = Task {
            try? await Task.sleep(for: limit)
            ended.continuation.yield(false)
        }
        let result = await ended.stream.first { _ in true } ?? false
        timeout.cancel()
        end.cancel()
        return result
    }

    /// How long a close waits for the pool's run to end; closing connections takes milliseconds.
    static let runEndLimit: Duration = .seconds(5)
}
