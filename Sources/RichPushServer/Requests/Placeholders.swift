import Mustache

/// The Mustache placeholders of templates (`{{percent}}`), through swift-mustache: rendered as plain text (a push is
/// not HTML, so nothing is escaped), and a placeholder without a variable is an error naming it, never an empty gap.
enum Placeholders {
    /// `text` with its placeholders filled in from `variables`.
    static func render(_ text: String, field: String, with variables: [String: String]) throws -> String {
        let template = try parse(text, field: field)
        let lookup = VariableLookup(variables)
        let rendered = template.render(lookup)
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
        do {
            return try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT}}" + text)
        } catch {
            throw APIError.unprocessable("template.invalid", "\(field) has a malformed placeholder: \(error).")
        }
    }

    /// The variables as swift-mustache looks them up, noting each name it asks for and does not find.
    private final class VariableLookup: MustacheParent {
        let variables: [String: String]
        private(set) var missing: [String] = []

        init(_ variables: [String: String]) {
            self.variables = variables
        }

        func child(named name: String) -> Any? {
            guard let value = variables[name] else {
                if !missing.contains(name) { missing.append(name) }
                return nil
            }
            return value
        }
    }
}
