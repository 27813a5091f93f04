public import RichPushCore

/// The settings of `richpush user add` besides the store's (``ServeSettings/store``).
public enum UserAddSettings {
    public static let role = Setting.optional(
        "role", "The new user's role: admin, marketer or member", expected: "admin, marketer or member", defaultText: "required",
        parse: Role.init(rawValue:))
    public static let passwordStandardInput = Setting.switch(
        "password-stdin", "Read the password from standard input (one trailing newline is not part of it) instead of asking for it twice",
        defaultText: "off")

    public static let all: [any SettingDescription] = [role, passwordStandardInput] + ServeSettings.store
}
