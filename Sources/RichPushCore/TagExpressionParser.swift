/// A recursive-descent parser over the grammar
/// `or := and ("||" and)*`, `and := unary ("&&" unary)*`, `unary := "!" unary | "(" or ")" | comparison | tag`,
/// `comparison := "appVersion" ("<" | "<=" | ">" | ">=" | "==") version`.
struct TagExpressionParser {
    /// Deeply nested input must not exhaust the stack.
    static let maximumDepth = 64
    /// Far more than a hub accepts; keeps evaluation cheap for any input.
    static let maximumTags = 256

    private let characters: [Character]
    private var index = 0
    private var depth = 0
    private var tagCount = 0

    init(_ text: String) {
        self.characters = Array(text)
    }

    mutating func parseWhole() throws(TagExpressionError) -> TagExpression {
        skipSpaces()
        guard index < characters.count else { throw error("the expression is empty") }
        let expression = try parseOr()
        skipSpaces()
        guard index == characters.count else {
            if characters[index] == ")" { throw error("unbalanced ')'") }
            throw error("expected '&&', '||' or the end, found '\(characters[index])'")
        }
        return expression
    }

    private mutating func parseOr() throws(TagExpressionError) -> TagExpression {
        var expression = try parseAnd()
        while consume("||") {
            expression = .or(expression, try parseAnd())
        }
        return expression
    }

    private mutating func parseAnd() throws(TagExpressionError) -> TagExpression {
        var expression = try parseUnary()
        while consume("&&") {
            expression = .and(expression, try parseUnary())
        }
        return expression
    }

    private mutating func parseUnary() throws(TagExpressionError) -> TagExpression {
        skipSpaces()
        guard index < characters.count else { throw error("expected a tag, '!' or '(' but the expression ended") }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("the expression nests deeper than \(Self.maximumDepth) levels") }
        switch characters[index] {
        case "!":
            index += 1
            return .not(try parseUnary())
        case "(":
            let open = index
            index += 1
            let inner = try parseOr()
            skipSpaces()
            guard index < characters.count, characters[index] == ")" else {
                throw TagExpressionError(position: open, reason: "'(' is never closed")
            }
            index += 1
            return inner
        default:
            return try parseTag()
        }
    }

    private mutating func parseTag() throws(TagExpressionError) -> TagExpression {
        let start = index
        while index < characters.count, let ascii = characters[index].asciiValue, Tag.isExpressionByte(ascii) {
            index += 1
        }
        if String(characters[start..<index]) == "appVersion", let comparison = try parseComparison() {
            return .appVersion(comparison)
        }
        guard index > start else {
            let found = characters[index]
            if found == "&" || found == "|" || found == ")" { throw error("expected a tag before '\(found)'") }
            throw error("'\(found)' may not appear in a tag (allowed: letters, digits and _@#.:-)")
        }
        let tag = String(characters[start..<index])
        guard tag.utf8.count <= Tag.maximumLength else {
            throw TagExpressionError(position: start, reason: "a tag is longer than \(Tag.maximumLength) characters")
        }
        tagCount += 1
        guard tagCount <= Self.maximumTags else { throw error("the expression names more than \(Self.maximumTags) tags") }
        return .tag(tag)
    }

    /// The operator and version after `appVersion`, or nil when none follows (then `appVersion` is a tag).
    private mutating func parseComparison() throws(TagExpressionError) -> VersionComparison? {
        let afterName = index
        skipSpaces()
        let op: VersionComparison.Operator? =
            if consume("<=") { .lessThanOrEqual } else if consume(">=") { .greaterThanOrEqual } else if consume("==") {
                .equal
            } else if consume(
                "<")
            { .lessThan } else if consume(">") { .greaterThan } else { nil }
        guard let op else {
            index = afterName
            return nil
        }
        skipSpaces()
        let start = index
        while index < characters.count, characters[index].isASCII, characters[index].isNumber || characters[index] == "." { index += 1 }
        guard let version = AppVersion(parsing: String(characters[start..<index])) else {
            throw TagExpressionError(position: start, reason: "expected a version of dotted numbers, such as 2.3, after '\(op.rawValue)'")
        }
        return VersionComparison(op, version)
    }

    private mutating func consume(_ token: String) -> Bool {
        skipSpaces()
        let end = index + token.count
        guard end <= characters.count, String(characters[index..<end]) == token else { return false }
        index = end
        return true
    }

    private mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    private func error(_ reason: String) -> TagExpressionError {
        TagExpressionError(position: index, reason: reason)
    }
}
