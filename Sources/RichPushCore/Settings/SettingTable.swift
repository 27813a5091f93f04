/// What a program's help and the README say of one setting, whatever its type.
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

/// A program's settings as the README's table shows them: the flag, the environment variable, the default, what it
/// does. The README's tables are this text, which a test holds them to.
public enum SettingTable {
    public static func markdown(_ settings: [any SettingDescription]) -> String {
        var lines = ["| flag | env | default | what |", "|---|---|---|---|"]
        for setting in settings where setting.hasFlag {
            let defaultText = setting.defaultText.map { setting.defaultIsLiteral ? "`\($0)`" : cell($0) } ?? "none"
            lines.append("| `--\(setting.name)` | `\(setting.environmentName)` | \(defaultText) | \(cell(setting.summary)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Words as a table cell: no bar ends it early, no angle bracket opens a tag, no star starts emphasis.
    private static func cell(_ text: String) -> String {
        text.replacing("|", with: "\\|").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("*", with: "\\*")
    }
}
