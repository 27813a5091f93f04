/// A Notification Hubs tag expression: tags joined by `&&`, `||`, `!` and parentheses, and comparisons of the app
/// version (`appVersion >= 2.3`).
///
/// ```swift
/// let audience = try TagExpression(parsing: "username:alice || (topic:sale && !lang:fr && appVersion >= 2.3)")
/// audience.matches(["topic:sale", "lang:en", "appversion:2.10"])  // true
/// ```
public indirect enum TagExpression: Sendable, Hashable {
    case tag(String)
    /// Holds for an installation whose `appversion:` tag (the gateway sets it from `appVersion`) satisfies it.
    case appVersion(VersionComparison)
    case not(TagExpression)
    case and(TagExpression, TagExpression)
    case or(TagExpression, TagExpression)

    /// Parses `text`, throwing a ``TagExpressionError`` that names the offending position.
    public init(parsing text: String) throws(TagExpressionError) {
        var parser = TagExpressionParser(text)
        self = try parser.parseWhole()
    }

    /// Whether an installation carrying `tags` is addressed.
    public func matches(_ tags: Set<String>) -> Bool {
        switch self {
        case .tag(let tag): tags.contains(tag)
        case .appVersion(let comparison): comparison.holds(for: Self.appVersion(in: tags))
        case .not(let inner): !inner.matches(tags)
        case .and(let left, let right): left.matches(tags) && right.matches(tags)
        case .or(let left, let right): left.matches(tags) || right.matches(tags)
        }
    }

    /// The app version the gateway's `appversion:` tag among `tags` names.
    static func appVersion(in tags: Set<String>) -> AppVersion? {
        tags.lazy.filter { $0.hasPrefix(Tag.appVersionPrefix) }.compactMap { AppVersion(parsing: $0.dropFirst(Tag.appVersionPrefix.count)) }
            .first
    }

    /// Every tag the expression names.
    public var tags: Set<String> {
        switch self {
        case .tag(let tag): [tag]
        case .appVersion: []
        case .not(let inner): inner.tags
        case .and(let left, let right), .or(let left, let right): left.tags.union(right.tags)
        }
    }

    /// Whether the expression uses only `||` between tags (Notification Hubs allows 20 tags then, 6 otherwise).
    public var isPureDisjunction: Bool {
        switch self {
        case .tag: true
        case .or(let left, let right): left.isPureDisjunction && right.isPureDisjunction
        case .appVersion, .not, .and: false
        }
    }

    /// Whether the expression compares app versions, which no remote hub evaluates.
    public var comparesVersions: Bool {
        switch self {
        case .tag: false
        case .appVersion: true
        case .not(let inner): inner.comparesVersions
        case .and(let left, let right), .or(let left, let right): left.comparesVersions || right.comparesVersions
        }
    }

    /// Tags of which every matching tag set holds at least one, or `nil` when a set without any named tag can match
    /// (as `!lang:fr` does).
    ///
    /// This lets a store look up candidates by tag instead of evaluating every installation.
    public var requiredTags: Set<String>? {
        switch self {
        case .tag(let tag):
            return [tag]
        case .appVersion, .not:
            return nil
        case .and(let left, let right):
            switch (left.requiredTags, right.requiredTags) {
            case (let l?, let r?): return l.count <= r.count ? l : r
            case (let l?, nil): return l
            case (nil, let r?): return r
            case (nil, nil): return nil
            }
        case .or(let left, let right):
            guard let l = left.requiredTags, let r = right.requiredTags else { return nil }
            return l.union(r)
        }
    }

    /// The single user this expression addresses when it is exactly `username:<name>`.
    public var soleUsername: String? {
        guard case .tag(let tag) = self, tag.hasPrefix("username:") else { return nil }
        return String(tag.dropFirst("username:".count))
    }
}

extension TagExpression: CustomStringConvertible {
    /// The canonical text of the expression, fully parenthesised where precedence needs it.
    public var description: String {
        switch self {
        case .tag(let tag): tag
        case .appVersion(let comparison): comparison.description
        case .not(let inner): "!" + inner.operandDescription
        case .and(let left, let right): "\(left.andOperandDescription) && \(right.andOperandDescription)"
        case .or(let left, let right): "\(left) || \(right)"
        }
    }

    private var operandDescription: String {
        if case .tag = self { return self.description }
        if case .not = self { return self.description }
        return "(\(self))"
    }

    private var andOperandDescription: String {
        if case .or = self { return "(\(self))" }
        return self.description
    }
}

/// Why a tag expression could not be parsed; `position` counts characters from 0.
public struct TagExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let position: Int
    public let reason: String

    public var description: String { "\(reason) at character \(position + 1)" }
}
