/// Where a command's settings come from, in the order they win: the flags given, the `RICHPUSH_*` environment, the
/// config file, the defaults.
public struct SettingSources: Sendable {
    /// The flags given, by setting name: one entry per use of a flag (a switch given is `"true"`).
    public var flags: [String: [String]]
    public var environment: [String: String]
    public var file: ConfigFile
    /// The config file's path, for sentences about what it holds; nil when none was read.
    public var filePath: String?

    public init(flags: [String: [String]] = [:], environment: [String: String] = [:], file: ConfigFile = .init(), filePath: String? = nil) {
        self.flags = flags
        self.environment = environment
        self.file = file
        self.filePath = filePath
    }

    /// Reads the config file that `configFile` (a flag or its environment form) names, else the one at
    /// `standardPath` if it exists, and refuses a key that is none of `known`'s names, so a misspelled setting is not
    /// silently ignored.
    /// - Parameters:
    ///   - flags: the flags given.
    ///   - environment: the process environment.
    ///   - configFile: the setting that names the file.
    ///   - standardPath: where the program looks for its file when none is named.
    ///   - known: the names of the program's settings.
    ///   - program: the program, for the sentence that refuses a key.
    ///   - readFile: a file's text, or nil when it cannot be read.
    public static func load(
        flags: GivenFlags, environment: [String: String], configFile: Setting<String?>, standardPath: String? = nil,
        known: Set<String>, program: String, readFile: (String) -> String?
    ) throws(SettingError) -> SettingSources {
        var sources = SettingSources(flags: flags.values, environment: environment)
        let path: String
        if let named = try sources.value(configFile) {
            guard let text = readFile(named) else { throw .unreadableFile(named) }
            path = named
            sources.file = try parse(text, path: path)
        } else if let standardPath, let text = readFile(standardPath) {
            path = standardPath
            sources.file = try parse(text, path: path)
        } else {
            return sources
        }
        sources.filePath = path
        if let unknown = sources.file.values.keys.sorted().first(where: { !known.contains($0) || $0 == configFile.name }) {
            throw .unknownKey(unknown, file: path, program: program)
        }
        return sources
    }

    private static func parse(_ text: String, path: String) throws(SettingError) -> ConfigFile {
        do {
            return try ConfigFile(parsing: text)
        } catch {
            throw .malformedFile(path, error)
        }
    }

    /// The setting's value from the first source that gives it, else its default.
    public func value<Value>(_ setting: Setting<Value>) throws(SettingError) -> Value {
        try resolved(setting)
    }

    private func resolved<Value>(_ setting: Setting<Value>) throws(SettingError) -> Value {
        guard let (text, source) = given(setting) else { return setting.defaultValue }
        guard let value = setting.value(of: text) else { throw .invalid(setting, text: text, from: source) }
        return value
    }

    /// The entries of a list: each use of its flag is one, commas and all; else the environment's or the file's,
    /// comma-separated.
    public func value(_ setting: Setting<[String]>) throws(SettingError) -> [String] {
        if setting.form == .list, let entries = flags[setting.name], !entries.isEmpty { return entries }
        return try resolved(setting)
    }

    /// The setting's value, which must be given: `hint` says what it is.
    public func required<Wrapped>(_ setting: Setting<Wrapped?>, _ hint: String) throws(SettingError) -> Wrapped {
        guard let value = try value(setting) else { throw .missing(setting.name, hint) }
        return value
    }

    /// Whether some source gives the setting.
    public func isGiven<Value>(_ setting: Setting<Value>) -> Bool {
        given(setting) != nil
    }

    /// The text of the first source that gives `setting`, and which source it is. An empty text gives nothing but a
    /// switch turned off.
    private func given<Value>(_ setting: Setting<Value>) -> (text: String, source: SettingSource)? {
        func present(_ text: String?) -> String? {
            guard let text else { return nil }
            return text.isEmpty && setting.form != .switch ? nil : text
        }
        if setting.hasFlag, let text = present(flags[setting.name]?.last) { return (text, .flag) }
        if let text = present(environment[setting.environmentName]) { return (text, .environment(setting.environmentName)) }
        if let text = present(file[setting.name]) { return (text, .file(filePath ?? "the config file")) }
        return nil
    }
}

/// The flags a command line gave, by setting: what ``SettingSources`` reads first.
public struct GivenFlags: Sendable {
    public private(set) var values: [String: [String]]

    /// Flags by setting name, one entry per use.
    public init(_ values: [String: [String]] = [:]) {
        self.values = values
    }

    /// A switch, given or not.
    public mutating func add(_ setting: some SettingDescription, _ isOn: Bool) {
        if isOn { values[setting.name] = ["true"] }
    }

    /// A flag of the setting named `name`, given with `texts`, one per use.
    public mutating func add(named name: String, _ texts: [String]) {
        if !texts.isEmpty { values[name] = texts }
    }

    /// Both commands' flags, as one command line holds them.
    public func merging(_ other: GivenFlags) -> GivenFlags {
        var merged = self
        merged.values.merge(other.values) { mine, _ in mine }
        return merged
    }
}

/// Which source gave a setting's text.
public enum SettingSource: Sendable, Equatable {
    case flag
    case environment(String)
    case file(String)
}

/// A setting that cannot be used, in the one sentence every command says it with.
public struct SettingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// `--port must be an integer from 0 to 65535, not 'eighty' (from RICHPUSH_PORT)`.
    public static func invalid<Value>(_ setting: Setting<Value>, text: String, from source: SettingSource) -> Self {
        let origin =
            switch source {
            case .flag: ""
            case .environment(let variable): " (from \(variable))"
            case .file(let path): " (from \(path))"
            }
        return SettingError("--\(setting.name) must be \(setting.expected), not '\(text)'\(origin)")
    }

    /// `--server is required (or RICHPUSH_SERVER, or 'server = …' in the config file): the gateway's URL`.
    public static func missing(_ name: String, _ hint: String) -> Self {
        SettingError("--\(name) is required (or \(Setting<String>.environmentName(of: name)), or '\(name) = …' in the config file): \(hint)")
    }

    public static func unreadableFile(_ path: String) -> Self {
        SettingError("cannot read the config file \(path)")
    }

    public static func malformedFile(_ path: String, _ error: ConfigFileError) -> Self {
        SettingError("the config file \(path), \(error)")
    }

    public static func unknownKey(_ key: String, file path: String, program: String) -> Self {
        SettingError("the config file \(path) sets '\(key)', which is not a setting of \(program)")
    }
}
