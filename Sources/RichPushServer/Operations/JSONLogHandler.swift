public import Logging
import RichPushCore

// swift-log ships a text handler alone (StreamLogHandler), and the machine's packages hold no JSON one: log shippers
// (Vector, Fluent Bit, Loki's promtail) read one JSON object a line, which this writes by hand, since a log line is made
// on every request's path and a JSONEncoder per line costs several times the line.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Log lines as JSON objects on standard error, one a line:
/// `{"time":"2026-12-06T10:00:00.250Z","level":"info","label":"richpush","message":"…","metadata":{"richpush.service":"dispatcher"}}`.
/// Metadata keeps its nesting (dictionaries as objects, arrays as arrays); every other value is its text.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String

    public init(label: String, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        StandardError.write(Self.line(time: .now, level: event.level, label: label, message: "\(event.message)", metadata: merged))
    }

    /// The JSON object of one log line, with its newline.
    static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        var line = #"{"time":"\#(Timestamp.format(time))","level":"\#(level)","label":"#
        appendString(label, to: &line)
        line += #","message":"#
        appendString(message, to: &line)
        if !metadata.isEmpty {
            line += #","metadata":"#
            appendValue(.dictionary(metadata), to: &line)
        }
        line += "}\n"
        return line
    }

    private static func appendValue(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text):
            appendString(text, to: &line)
        case .stringConvertible(let convertible):
            appendString(convertible.description, to: &line)
        case .dictionary(let dictionary):
            line += "{"
            for (index, (key, value)) in dictionary.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                appendValue(value, to: &line)
            }
            line += "}"
        case .array(let values):
            line += "["
            for (index, value) in values.enumerated() {
                if index > 0 { line += "," }
                appendValue(value, to: &line)
            }
            line += "]"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7).
    private static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}

/// How the gateway writes its log (`--log-format`).
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}
