public import Logging
import Synchronization

/// The messages logged through ``logger``, kept for a test to read: what an operator would read in the log.
public final class CapturedLog: Sendable {
    private let messages = Mutex<[String]>([])

    public init() {}

    /// A logger at `level` whose messages this log keeps.
    public func logger(label: String = "test", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    /// Every message so far, in the order they were logged.
    public var lines: [String] { messages.withLock { $0 } }

    fileprivate func append(_ line: String) {
        messages.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append("\(event.level) \(event.message)")
        }
    }
}
