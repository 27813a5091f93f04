#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A small `name = value` configuration file, one setting per line, `#` starting a comment line.
///
/// Names are the long flag names (`data-dir`, `port`); values may be wrapped in double quotes.
public struct ConfigFile: Sendable, Equatable {
    public private(set) var values: [String: String] = [:]

    public init(values: [String: String] = [:]) {
        self.values = values
    }

    /// Parses `text`, naming the first bad line in the error.
    public init(parsing text: String) throws(ConfigFileError) {
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigFileError(line: offset + 1, reason: "expected 'name = value'")
            }
            let name = line[..<equals].trimmingWhitespace()
            var value = line[line.index(after: equals)...].trimmingWhitespace()
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw ConfigFileError(line: offset + 1, reason: "'\(name)' is not a setting name")
            }
            if value.count >= 2, value.first == "\"", value.last == "\"" {
                value = value.dropFirst().dropLast()
            }
            values[name.replacingUnderscores()] = String(value)
        }
    }

    public subscript(name: String) -> String? { values[name] }
}

/// A configuration file line that could not be read.
public struct ConfigFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let reason: String

    public var description: String { "line \(line): \(reason)" }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first.isWhitespace { result = result.dropFirst() }
        while let last = result.last, last.isWhitespace { result = result.dropLast() }
        return result
    }

    fileprivate func replacingUnderscores() -> String {
        String(self.map { $0 == "_" ? "-" : $0 })
    }
}

/// Resolves one setting from its sources: a flag wins over the environment, that over the file, that over the default.
public struct SettingsResolver: Sendable {
    public let environment: [String: String]
    public let file: ConfigFile
    public let environmentPrefix: String

    public init(environment: [String: String], file: ConfigFile = .init(), environmentPrefix: String = "RICHPUSH_") {
        self.environment = environment
        self.file = file
        self.environmentPrefix = environmentPrefix
    }

    /// The environment variable of a flag: `data-dir` ↔ `RICHPUSH_DATA_DIR`.
    public func environmentName(of flag: String) -> String {
        environmentPrefix + flag.uppercased().replacing("-", with: "_")
    }

    /// The value of `flag` from the first source that has it.
    public func value(_ flag: String, flagValue: String?) -> String? {
        if let flagValue { return flagValue }
        if let value = environment[environmentName(of: flag)], !value.isEmpty { return value }
        return file[flag]
    }

    /// What a switch's text says: `1`, `true`, `yes`, `on` or their opposites (empty is off); nil for anything else.
    public static func switchState(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": true
        case "0", "false", "no", "off", "": false
        default: nil
        }
    }
}
