/// A Notification Hubs tag expression: tags joined by `&&`, `||`, `!` and parentheses.
///
/// ```swift
/// let audience = try TagExpression(parsing: "username:alice || (topic:sale && !lang:fr)")
/// audience.matches(["topic:sale", "lang:en"])  // true
/// ```
public indirect enum TagExpression: Sendable, Hashable {
    case tag(String)
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
        case .not(let inner): !inner.matches(tags)
        case .and(let left, let right): left.matches(tags) && right.matches(tags)
        case .or(let left, let right): left.matches(tags) || right.matches(tags)
        }
    }

    /// Every tag the expression names.
    public var tags: Set<String> {
        switch self {
        case .tag(let tag): [tag]
        case .not(let inner): inner.tags
        case .and(let left, let right), .or(let left, let right): left.tags.union(right.tags)
        }
    }

    /// Whether the expression uses only `||` between tags (Notification Hubs allows 20 tags then, 6 otherwise).
    public var isPureDisjunction: Bool {
        switch self {
        case .tag: true
        case .or(let left, let right): left.isPureDisjunction && right.isPureDisjunction
        case .not, .and: false
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
        case .not:
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
