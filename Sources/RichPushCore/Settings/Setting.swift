// The settings are declared and resolved here rather than through swift-configuration: its reader takes keys from its
// own providers (command-line arguments parsed on their own, environment, JSON or YAML files), while the commands'
// flags are swift-argument-parser's, with their help, and the config files are `name = value` lines that
// richpushd.conf users already have. One typed declaration per setting, read through ``SettingSources``, gives the
// same order (flag, environment, file, default), the same sentences and the documentation's tables from one place.

/// One setting of a command, declared once.
///
/// Its name is the long flag (`--data-dir`), the config-file key (`data-dir = …`) and, upper-cased after `RICHPUSH_`,
/// the environment variable (`RICHPUSH_DATA_DIR`). Its text becomes its typed value in one place, for a flag, the
/// environment and the file alike; a text that does not read as one is refused with a sentence saying what was
/// expected and where the text came from.
public struct Setting<Value: Sendable>: Sendable {
    /// How a setting is given on the command line.
    public enum Form: Sendable {
        /// `--name VALUE`.
        case value
        /// `--name` alone; `true`/`false` (`1`, `yes`, `on` …) in the environment and the file.
        case `switch`
        /// `--name VALUE`, repeatable, one entry each; entries separated by commas in the environment and the file.
        case list
    }

    public let name: String
    /// What it does, as `--help` and the documentation's tables say it.
    public let summary: String
    /// The value when no source gives one.
    public let defaultValue: Value
    /// The default as people write it (`8080`, `15s`), or what happens without one ("off"); nil where there is
    /// nothing to show.
    public let defaultText: String?
    /// Whether ``defaultText`` is a value as one would write it, rather than words about the default.
    public let defaultIsLiteral: Bool
    /// What a text must look like, completing "--port must be …": "an integer from 0 to 65535".
    public let expected: String
    public let form: Form
    /// Whether it also has a flag; a few settings (the first admin's password) come from the environment or the file
    /// only.
    public let hasFlag: Bool
    let parse: @Sendable (String) -> Value?

    public init(
        _ name: String, _ summary: String, default defaultValue: Value, defaultText: String?, defaultIsLiteral: Bool = false,
        expected: String, form: Form = .value, hasFlag: Bool = true, parse: @escaping @Sendable (String) -> Value?
    ) {
        self.name = name
        self.summary = summary
        self.defaultValue = defaultValue
        self.defaultText = defaultText
        self.defaultIsLiteral = defaultIsLiteral
        self.expected = expected
        self.form = form
        self.hasFlag = hasFlag
        self.parse = parse
    }

    /// `RICHPUSH_DATA_DIR` for `data-dir`.
    public var environmentName: String { Self.environmentName(of: name) }

    /// The `--help` text: the summary, the default, the environment form.
    public var help: String {
        let defaultPart = defaultText.map { "default \($0); " } ?? ""
        return "\(summary) (\(defaultPart)env \(environmentName))."
    }

    public static func environmentName(of name: String) -> String {
        "RICHPUSH_" + name.uppercased().replacing("-", with: "_")
    }

    /// The value `text` gives, or nil when it reads as none.
    public func value(of text: String) -> Value? {
        parse(text)
    }
}

extension Setting {
    /// A setting that is unset unless given, its text read by `parse`.
    public static func optional<Wrapped>(
        _ name: String, _ summary: String, expected: String, defaultText: String? = nil, defaultIsLiteral: Bool = false, hasFlag: Bool = true,
        parse: @escaping @Sendable (String) -> Wrapped?
    ) -> Self where Value == Wrapped? {
        Setting(name, summary, default: nil, defaultText: defaultText, defaultIsLiteral: defaultIsLiteral, expected: expected, hasFlag: hasFlag) {
            text in parse(text).map { $0 }
        }
    }

    /// A text that is unset unless given; an empty text counts as unset.
    public static func text(
        _ name: String, _ summary: String, defaultText: String? = nil, defaultIsLiteral: Bool = false, hasFlag: Bool = true
    ) -> Self where Value == String? {
        optional(name, summary, expected: "a text", defaultText: defaultText, defaultIsLiteral: defaultIsLiteral, hasFlag: hasFlag) { $0 }
    }
}

extension Setting where Value == String {
    /// A text with a default.
    public static func text(_ name: String, _ summary: String, default defaultValue: String) -> Self {
        Setting(name, summary, default: defaultValue, defaultText: defaultValue, defaultIsLiteral: true, expected: "a text") { $0 }
    }
}

extension Setting where Value == Int {
    /// A whole number within `range`.
    public static func integer(_ name: String, _ summary: String, in range: ClosedRange<Int>, default defaultValue: Int) -> Self {
        Setting(
            name, summary, default: defaultValue, defaultText: "\(defaultValue)", defaultIsLiteral: true,
            expected: "an integer from \(range.lowerBound) to \(range.upperBound)"
        ) { text in
            Int(text).flatMap { range.contains($0) ? $0 : nil }
        }
    }
}

extension Setting where Value == Duration {
    /// A duration within `range`, written `90s`, `15m`, `12h`, `1d`, `2w`, a sum such as `1h30m`, or a number of
    /// seconds.
    public static func duration(_ name: String, _ summary: String, in range: ClosedRange<Duration>, default defaultValue: Duration) -> Self {
        Setting(
            name, summary, default: defaultValue, defaultText: DurationText.text(of: defaultValue), defaultIsLiteral: true,
            expected: "a duration from \(DurationText.text(of: range.lowerBound)) to \(DurationText.text(of: range.upperBound)), such as 30s or 5m"
        ) { text in
            guard let seconds = DurationText.seconds(in: text) ?? Double(text).flatMap({ $0.isFinite ? $0 : nil }) else { return nil }
            let duration = Duration.milliseconds(Int64((seconds * 1000).rounded()))
            return range.contains(duration) ? duration : nil
        }
    }
}

extension Setting where Value == Bool {
    /// A switch, off unless given.
    public static func `switch`(_ name: String, _ summary: String, defaultText: String? = nil) -> Self {
        Setting(name, summary, default: false, defaultText: defaultText, expected: "true or false", form: .switch) { text in
            switch text.lowercased() {
            case "1", "true", "yes", "on": true
            case "0", "false", "no", "off", "": false
            default: nil
            }
        }
    }
}

extension Setting where Value == [String] {
    /// Entries given one per repeated flag, or comma-separated in the environment or the file; each is read by the
    /// command that uses it.
    public static func list(_ name: String, _ summary: String, defaultText: String? = nil) -> Self {
        Setting(name, summary, default: [], defaultText: defaultText, expected: "comma-separated entries", form: .list) { text in
            text.split(separator: ",").map { $0.trimmingCharacters(in: " ") }.filter { !$0.isEmpty }
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
