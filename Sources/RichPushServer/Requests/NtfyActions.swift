import Foundation
import RichPushCore

/// ntfy's action buttons as richpush's: `view` opens a link, `http` has the gateway make the request. ntfy's
/// `broadcast` (an Android intent) and requests richpush cannot make as the sender meant (another method than GET
/// or POST, headers of the sender's) are refused, rather than shown as a button that does something else.
///
/// Hand-written: ntfy's header form (`view, Open portal, https://…, clear=true; http, Close door, https://…,
/// method=POST, body='{"x":1}'`) is its own small grammar, values quoted with `'` or `"` when they hold a comma or a
/// semicolon, which no parser on hand reads.
enum NtfyActions {
    static func invalid(_ message: String) -> APIError {
        APIError.badRequest("ntfy.invalidActions", message)
    }

    /// The buttons of ntfy's JSON form: an array of objects with `action`, `label`, `url` and for `http` `method`,
    /// `headers` and `body`.
    static func fromJSON(_ value: JSONValue) throws -> [NotificationAction] {
        guard case .array(let entries) = value else { throw invalid("actions must be an array of ntfy actions.") }
        var fields: [[String: String]] = []
        for entry in entries {
            guard case .object(let object) = entry else { throw invalid("Each action is an object with action, label and url.") }
            var strings: [String: String] = [:]
            for (key, member) in object {
                switch member {
                case .string(let text): strings[key] = text
                case .bool(let flag): strings[key] = String(flag)
                case .object(let headers) where key == "headers": if !headers.isEmpty { strings[key] = "given" }
                default: throw invalid("The action's \(key) is not a string.")
                }
            }
            fields.append(strings)
        }
        return try actions(fields)
    }

    /// The buttons of ntfy's `Actions` header.
    static func fromHeader(_ header: String) throws -> [NotificationAction] {
        var fields: [[String: String]] = []
        for definition in split(header, on: ";") where !definition.allSatisfy(\.isWhitespace) {
            let parts = split(definition, on: ",")
            var entry: [String: String] = [:]
            var positional = ["action", "label", "url"][...]
            for part in parts {
                if let equals = part.firstIndex(of: "="), !part[..<equals].contains(" "), !part.hasPrefix("http") {
                    let key = String(part[..<equals])
                    entry[key.hasPrefix("headers.") ? "headers" : key] = unquoted(String(part[part.index(after: equals)...]))
                } else if let name = positional.popFirst() {
                    entry[name] = unquoted(part)
                }
            }
            fields.append(entry)
        }
        return try actions(fields)
    }

    private static func actions(_ entries: [[String: String]]) throws -> [NotificationAction] {
        var actions: [NotificationAction] = []
        for entry in entries {
            guard let kind = entry["action"], let label = entry["label"], let url = entry["url"] else {
                throw invalid("Each action has its kind, its label and its URL.")
            }
            let id = NotificationAction.id(fromLabel: label, taken: actions.map(\.id))
            switch kind.lowercased() {
            case "view":
                actions.append(NotificationAction(id: id, label: label, kind: .open, url: url))
            case "http":
                guard entry["headers"] == nil else {
                    throw invalid("richpush's http actions send no headers of the sender's: put what the target needs in its URL.")
                }
                guard let method = ActionMethod(rawValue: (entry["method"] ?? "POST").uppercased()) else {
                    throw invalid("richpush's http actions are GET or POST, not \(entry["method"] ?? "").")
                }
                actions.append(NotificationAction(id: id, label: label, kind: .http, url: url, method: method, body: entry["body"]))
            default:
                throw invalid("richpush shows view and http actions; \(kind) is not one.")
            }
        }
        return actions
    }

    /// `text` split on `separator` outside quotes, each part trimmed.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                current.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == separator {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts
    }

    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first else { return text }
        return String(text.dropFirst().dropLast())
    }
}
