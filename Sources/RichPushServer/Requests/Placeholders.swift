import Foundation
import Mustache

/// The Mustache placeholders of templates (`{{percent}}`), through swift-mustache: rendered as plain text (a push is
/// not HTML, so nothing is escaped), and a placeholder without a variable is an error naming it, never an empty gap.
///
/// Only variables (`{{name}}`, `{{{name}}}`, `{{&name}}`), sections (`{{#name}}…{{/name}}`, `{{^name}}…{{/name}}`)
/// and comments are placeholders here, each naming a declared variable; the rest of Mustache (`{{.}}`, dotted names,
/// transforms, partials, inheritance, delimiter changes, pragmas) is refused before swift-mustache sees the text. Its
/// parser recurses once a section, so nesting is bounded first, and a render stops once its output passes the limit.
///
/// The check reads bytes where swift-mustache reads characters: a brace that a combining mark or a prepended
/// character joins into one character (`\u{0600}{`, `}\u{0301}`) would be a brace to one and not the other, so
/// such a character is refused, and the two then find the same tags.
package enum Placeholders {
    /// Deep enough for any message; a parser recursing thousands of levels overflows its thread's stack.
    static let maximumNesting = 32

    /// `text` with its placeholders filled in from `variables`; throws `tooLong` once the output passes `limit` bytes
    /// of UTF-8. Variables are handed out up to twice the limit, as a section's own variable is looked up once for
    /// the section and again where it is printed; what is printed is held to the limit.
    package static func render(
        _ text: String, field: String, with variables: [String: String], limit: Int, tooLong: @autoclosure () -> any Error
    ) throws -> String {
        let template = try parse(text, field: field)
        let lookup = VariableLookup(variables, budget: 2 * limit)
        let rendered = template.render(lookup)
        if lookup.overflowed || rendered.utf8.count > limit { throw tooLong() }
        if let missing = lookup.missing.first {
            throw APIError.unprocessable(
                "template.missingVariable", "\(field) needs the variable \(missing); give it in variables, e.g. {\"\(missing)\": \"…\"}.")
        }
        return rendered
    }

    /// Refuses `text` when its placeholders do not parse.
    static func check(_ text: String, field: String) throws {
        _ = try parse(text, field: field)
    }

    private static func parse(_ text: String, field: String) throws -> MustacheTemplate {
        try checkTags(of: text, field: field)
        do {
            // The pragma stands on a line of its own, which the parser drops whole: the text's first character joins
            // nothing of it, and a leading newline of the text is kept.
            return try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT}}\n" + text)
        } catch {
            throw APIError.unprocessable("template.invalid", "\(field) has a malformed placeholder: \(error).")
        }
    }

    /// Reads every `{{…}}` tag of `text` without recursion, refusing what is not a placeholder here, a tag left open,
    /// a section closed that was never opened and sections nested deeper than ``maximumNesting``.
    private static func checkTags(of text: String, field: String) throws {
        if text.contains(where: { $0.unicodeScalars.count > 1 && ($0.unicodeScalars.contains("{") || $0.unicodeScalars.contains("}")) }) {
            throw APIError.unprocessable("template.invalid", "\(field) joins a brace and another character into one; write the brace on its own.")
        }
        let unterminated = APIError.unprocessable("template.invalid", "\(field) has a placeholder without its closing }}.")
        let bytes = Array(text.utf8)
        let open = UInt8(ascii: "{")
        let close = UInt8(ascii: "}")
        var depth = 0
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == open, bytes[index + 1] == open else {
                index += 1
                continue
            }
            var start = index + 2
            let triple = start < bytes.count && bytes[start] == open
            if triple { start += 1 }
            guard let end = firstClosing(in: bytes, from: start) else { throw unterminated }
            index = end + 2
            if triple {
                guard index < bytes.count, bytes[index] == close else { throw unterminated }
                index += 1
            }
            var tag = String(decoding: bytes[start..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            var sigil: Character? = nil
            if !triple, let first = tag.first, "#^/&!=><$%".contains(first) {
                sigil = first
                tag = String(tag.dropFirst()).trimmingCharacters(in: .whitespaces)
            }
            switch sigil {
            case "!":
                continue
            case "#", "^":
                depth += 1
                if depth > maximumNesting {
                    throw APIError.unprocessable(
                        "template.tooDeep", "\(field) nests sections more than \(maximumNesting) deep; flatten its {{#…}} sections.")
                }
            case "/":
                depth -= 1
                if depth < 0 {
                    throw APIError.unprocessable("template.invalid", "\(field) closes a section it never opened: {{/\(tag.prefix(64))}}.")
                }
            case "&", nil:
                break
            case let other?:
                throw APIError.unprocessable(
                    "template.invalid",
                    "\(field) uses {{\(other)…}}: only variables {{name}}, sections {{#name}}…{{/name}} and comments are placeholders here."
                )
            }
            guard isName(tag) else {
                throw APIError.unprocessable(
                    "template.invalid",
                    "\(field) has the placeholder {{\(tag.prefix(64))}}: a placeholder names a variable of 1 to 64 of A-Z, a-z, 0-9, _ and -.")
            }
        }
    }

    private static func firstClosing(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "}"), bytes[index + 1] == UInt8(ascii: "}") { return index }
            index += 1
        }
        return nil
    }

    /// `[A-Za-z0-9_-]{1,64}`, as variables are named.
    private static func isName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    /// The variables as swift-mustache looks them up, noting each name it asks for and does not find, and counting
    /// the bytes it hands out: past `budget` it hands out nothing more, so a render costs at most the budget and the
    /// template's own text (a variable is a string, so each tag renders at most once).
    private final class VariableLookup: MustacheParent {
        let variables: [String: String]
        private var budget: Int
        private(set) var missing: [String] = []
        private(set) var overflowed = false

        init(_ variables: [String: String], budget: Int) {
            self.variables = variables
            self.budget = budget
        }

        func child(named name: String) -> Any? {
            guard !overflowed else { return nil }
            guard let value = variables[name] else {
                if !missing.contains(name) { missing.append(name) }
                return nil
            }
            budget -= value.utf8.count
            guard budget >= 0 else {
                overflowed = true
                return nil
            }
            return value
        }
    }
}
