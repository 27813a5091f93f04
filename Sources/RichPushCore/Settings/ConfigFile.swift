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
