public import ArgumentParser
public import RichPushCore

// swift-argument-parser's side of the settings, for both command lines: a setting's flag, its help and the check of
// its text come from its one declaration, and the flags a command was given are collected from its options.

extension NameSpecification.Element {
    /// The long flag of a setting.
    public static func setting(_ setting: some SettingDescription) -> NameSpecification.Element {
        .customLong(setting.name)
    }
}

extension NameSpecification {
    /// The long flag of a setting.
    public static func setting(_ setting: some SettingDescription) -> NameSpecification {
        [.setting(setting)]
    }
}

extension ArgumentHelp {
    /// A setting's help: what it does, its default and its environment form.
    public static func setting(_ setting: some SettingDescription) -> ArgumentHelp {
        ArgumentHelp(setting.help)
    }
}

/// A setting's text as its flag gave it, read as the setting's value while the command line is parsed: a text that
/// does not read as one stops the command with the setting's own sentence, before anything runs.
public struct GivenSetting<Value: Sendable>: Sendable {
    public let name: String
    public let text: String
    public let value: Value

    init(_ setting: Setting<Value>, text: String) throws {
        guard let value = setting.value(of: text) else {
            throw ValidationError(SettingError.invalid(setting, text: text, from: .flag).description)
        }
        name = setting.name
        self.text = text
        self.value = value
    }

    /// One use of a repeatable flag: an entry, commas and all, which the command reads.
    init(entry text: String, of setting: Setting<[String]>) where Value == [String] {
        name = setting.name
        self.text = text
        value = [text]
    }
}

extension Option {
    /// The option of `setting`, unset unless given.
    public init<Given>(_ setting: Setting<Given>) where Value == GivenSetting<Given>? {
        self.init(name: .setting(setting), help: .setting(setting)) { text in try GivenSetting(setting, text: text) }
    }

    /// The repeatable option of a list `setting`, one entry per use.
    public init(_ setting: Setting<[String]>) where Value == [GivenSetting<[String]>] {
        self.init(wrappedValue: [], name: .setting(setting), help: .setting(setting)) { text in
            GivenSetting(entry: text, of: setting)
        }
    }
}

extension Flag where Value == Bool {
    /// The switch of `setting`, off unless given.
    public init(_ setting: Setting<Bool>) {
        self.init(wrappedValue: false, name: .setting(setting), help: .setting(setting))
    }
}

extension GivenFlags {
    /// The flags `arguments` were given through options of settings (``Option/init(_:)``), theirs and their option
    /// groups'; switches are added by name, as a `Bool` does not say which setting it is.
    public init(options arguments: some ParsableArguments) {
        self.init()
        collect(from: arguments)
    }

    private mutating func collect(from arguments: any ParsableArguments) {
        for child in Mirror(reflecting: arguments).children {
            if let option = child.value as? any GivenTexts {
                for (name, texts) in option.given { add(named: name, texts) }
            } else if let group = child.value as? any ArgumentGroup {
                collect(from: group.arguments)
            }
        }
    }
}

/// The texts given to settings, by setting: an option of a setting, and what it holds (one given text, or a
/// repeatable flag's entries).
private protocol GivenTexts {
    var given: [(name: String, texts: [String])] { get }
}

extension Optional: GivenTexts where Wrapped: GivenText {
    var given: [(name: String, texts: [String])] { map { [($0.name, [$0.text])] } ?? [] }
}

extension Array: GivenTexts where Element: GivenText {
    var given: [(name: String, texts: [String])] { first.map { [($0.name, map(\.text))] } ?? [] }
}

private protocol GivenText {
    var name: String { get }
    var text: String { get }
}

extension GivenSetting: GivenText {}

extension Option: GivenTexts where Value: GivenTexts {
    fileprivate var given: [(name: String, texts: [String])] { wrappedValue.given }
}

/// An option group, whose options are collected with the command's.
private protocol ArgumentGroup {
    var arguments: any ParsableArguments { get }
}

extension OptionGroup: ArgumentGroup {
    fileprivate var arguments: any ParsableArguments { wrappedValue }
}
