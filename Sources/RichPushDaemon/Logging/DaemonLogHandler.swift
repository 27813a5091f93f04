import Glibc
public import Logging
import RichPushCore

/// Log lines for a daemon: under systemd (`$JOURNAL_STREAM` set) each line starts with its syslog priority
/// (`<4>`) so the journal files it at the right level and adds the time itself; elsewhere lines read
/// `richpushd: warning: message key=value` on standard error.
public struct DaemonLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let journal: Bool

    public init(level: Logger.Level, journal: Bool) {
        self.logLevel = level
        self.journal = journal
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = journal ? "<\(Self.priority(event.level))>" : "richpushd: \(event.level): "
        line += "\(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            let name = key.hasPrefix("richpush.") ? String(key.dropFirst(9)) : key
            line += " \(name)=\(value)"
        }
        StandardError.write(line + "\n")
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// The process environment as a dictionary, read from `environ` (no Foundation needed).
public enum ProcessEnvironment {
    public static func current() -> [String: String] {
        var values: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return values
    }
}
