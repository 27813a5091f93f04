/// An app version as dotted numbers (`2.10.1`), compared number by number: `2.10 > 2.9`, `2.3 == 2.3.0`.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numbers, without trailing zeros.
    public let components: [Int]

    /// The version `text` spells: 1 to 10 numbers of at most 9 digits joined by dots; nil for anything else
    /// (`2.3-beta`), which matches no comparison.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...10).contains(parts.count) else { return nil }
        var components: [Int] = []
        for part in parts {
            guard (1...9).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(part) else { return nil }
            components.append(number)
        }
        while components.count > 1, components.last == 0 { components.removeLast() }
        self.components = components
    }

    /// Text that sorts as the versions do, byte by byte: every number padded to ten digits. A store compares these
    /// where it cannot compare versions itself.
    public var sortKey: String {
        components.map { number in
            let digits = String(number)
            return String(repeating: "0", count: 10 - digits.count) + digits
        }.joined(separator: ".")
    }

    public static func < (left: AppVersion, right: AppVersion) -> Bool {
        left.components.lexicographicallyPrecedes(right.components)
    }

    public var description: String { components.map(String.init).joined(separator: ".") }
}

/// `appVersion >= 2.3` in a tag expression.
public struct VersionComparison: Sendable, Hashable, CustomStringConvertible {
    public enum Operator: String, Sendable, CaseIterable {
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        case equal = "=="
    }

    public var op: Operator
    public var version: AppVersion

    public init(_ op: Operator, _ version: AppVersion) {
        self.op = op
        self.version = version
    }

    /// Whether an installation of app version `installed` is addressed; one without a version never is.
    public func holds(for installed: AppVersion?) -> Bool {
        guard let installed else { return false }
        switch op {
        case .lessThan: return installed < version
        case .lessThanOrEqual: return installed <= version
        case .greaterThan: return installed > version
        case .greaterThanOrEqual: return installed >= version
        case .equal: return installed == version
        }
    }

    public var description: String { "appVersion \(op.rawValue) \(version)" }
}
