/// What a program's help and the documentation say of one setting, whatever its type.
public protocol SettingDescription: Sendable {
    var name: String { get }
    var summary: String { get }
    var defaultText: String? { get }
    var defaultIsLiteral: Bool { get }
    var environmentName: String { get }
    /// The `--help` text.
    var help: String { get }
    var hasFlag: Bool { get }
}

extension Setting: SettingDescription {}

/// A program's settings as the documentation's tables show them: the flag, the environment variable, the default, what it
/// does. The tables of `docs/` are this text, which a test holds them to.
public enum SettingTable {
    public static func markdown(_ settings: [any SettingDescription]) -> String {
        var lines = ["| flag | env | default | what |", "|---|---|---|---|"]
        for setting in settings where setting.hasFlag {
            let defaultText = setting.defaultText.map { setting.defaultIsLiteral ? "`\($0)`" : cell($0) } ?? "none"
            lines.append("| `--\(setting.name)` | `\(setting.environmentName)` | \(defaultText) | \(cell(setting.summary)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A config file of `settings`: the lines `chosen` gives set, then every other setting commented out with what it
    /// does and its default, so the file an operator edits names each setting there is and cannot drift from them.
    public static func configFile(_ settings: [any SettingDescription], chosen: KeyValuePairs<String, String>, header: String) -> String {
        let chosenNames = Set(chosen.map(\.key))
        var lines = header.split(separator: "\n", omittingEmptySubsequences: false).map { "# " + $0 }
        lines = lines.map { $0 == "# " ? "#" : $0 }
        lines.append("")
        for (name, value) in chosen { lines.append("\(name) = \(value)") }
        // The config file itself and the settings only a command line can give (a switch read from standard input) are
        // not lines of it.
        for setting in settings where !chosenNames.contains(setting.name) && setting.name != "config" {
            lines.append("")
            lines.append("# \(setting.summary).")
            if let defaultText = setting.defaultText, setting.defaultIsLiteral {
                lines.append("#\(setting.name) = \(defaultText)")
            } else {
                lines.append("# Default: \(setting.defaultText ?? "none").")
                lines.append("#\(setting.name) =")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Words as a table cell: no bar ends it early, no angle bracket opens a tag, no star starts emphasis.
    private static func cell(_ text: String) -> String {
        text.replacing("|", with: "\\|").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("*", with: "\\*")
    }
}
