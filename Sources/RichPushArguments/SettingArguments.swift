public import ArgumentParser
public import RichPushCore

// swift-argument-parser's side of the settings, for both command lines: a setting's flag and its help come from its one
// declaration.

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
