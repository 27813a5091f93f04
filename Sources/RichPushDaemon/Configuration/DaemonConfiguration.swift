import RichPushCore

/// Everything `richpushd` runs with, resolved from flags, the environment and `richpushd.conf`.
///
/// Each setting is looked up in one order: a flag wins over its `RICHPUSH_*` environment form, that over the config
/// file, that over the default. The password or token is never a setting value: it comes from a file or standard input.
public struct DaemonConfiguration: Sendable, Equatable {
    /// The gateway's base URL, without a trailing slash.
    public var server: String
    /// Nil with a token, which names its user itself.
    public var username: String?
    public var secret: SecretSource
    /// Tags the installation registers besides those the gateway derives (`username:…`, `installation:…`).
    public var tags: [String]
    /// The program and leading arguments that open a payload; the file or URL is appended.
    public var openCommand: [String]
    /// The most bytes of payloads kept in the cache directory; the oldest files go first.
    public var cacheLimit: Int
    /// The longest edge, in pixels, of the image copy that travels inside the alert.
    public var imageSize: Int
    /// A stream silent for this long is dead (the gateway sends a heartbeat every 15 seconds by default).
    public var heartbeatTimeout: Duration
    /// Extra CA certificates to trust for an HTTPS gateway.
    public var caFile: String?
    /// Show what arrived since the last run, then exit.
    public var once: Bool
    public var verbose: Bool
    /// `$XDG_STATE_HOME/richpush`: the installation id and the stream position.
    public var stateDirectory: String
    /// `$XDG_CACHE_HOME/richpush`: fetched payloads.
    public var cacheDirectory: String
    /// The config file that was read, if any.
    public var configFile: String?

    /// Where the password, or the API token that stands in for user and password, comes from.
    public enum SecretSource: Sendable, Equatable {
        case passwordFile(String)
        case passwordStandardInput
        case tokenFile(String)
    }

    /// Every setting name, as a flag (`--cache-size`), a config-file key (`cache-size = 64M`) and, upper-cased with
    /// `RICHPUSH_`, an environment variable (`RICHPUSH_CACHE_SIZE`).
    public static let settingNames: Set<String> = [
        "server", "user", "password-file", "password-stdin", "token-file", "tags", "open-command", "cache-size", "image-size",
        "heartbeat-timeout", "ca-file", "config", "once", "verbose",
    ]

    public static let defaultOpenCommand = ["xdg-open"]
    public static let defaultCacheLimit = 64 * 1024 * 1024
    /// Notification servers show the image as an icon, 48 to 128 pixels even on a HiDPI screen; "More" opens the
    /// full image.
    public static let defaultImageSize = 128
    public static let defaultHeartbeatTimeout = Duration.seconds(45)

    /// Resolves the configuration.
    /// - Parameters:
    ///   - flags: values given as flags, by setting name.
    ///   - switches: boolean flags given (`once`, `verbose`, `password-stdin`).
    ///   - environment: the process environment (`HOME`, `XDG_*`, `RICHPUSH_*`).
    ///   - readFile: reads a file's text, nil when it does not exist or cannot be read.
    public static func resolve(
        flags: [String: String], switches: Set<String> = [], environment: [String: String], readFile: (String) -> String?
    ) throws(DaemonConfigurationError) -> DaemonConfiguration {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        func xdg(_ variable: String, _ fallback: String) -> String {
            guard let value = environment[variable], value.hasPrefix("/") else { return home + "/" + fallback }
            return value
        }
        let bare = SettingsResolver(environment: environment)
        var configFile: String?
        var file = ConfigFile()
        if let explicit = bare.value("config", flagValue: flags["config"]) {
            guard let text = readFile(explicit) else { throw .unreadableFile(explicit) }
            file = try parse(text, path: explicit)
            configFile = explicit
        } else {
            let standard = xdg("XDG_CONFIG_HOME", ".config") + "/richpush/richpushd.conf"
            if let text = readFile(standard) {
                file = try parse(text, path: standard)
                configFile = standard
            }
        }
        if let unknown = file.values.keys.sorted().first(where: { !settingNames.contains($0) || $0 == "config" }) {
            throw .invalid(setting: unknown, reason: "is not a setting of richpushd")
        }
        let settings = SettingsResolver(environment: environment, file: file)
        func value(_ name: String) -> String? {
            settings.value(name, flagValue: flags[name]).flatMap { $0.isEmpty ? nil : $0 }
        }
        func isOn(_ name: String) throws(DaemonConfigurationError) -> Bool {
            if switches.contains(name) { return true }
            guard let text = value(name) else { return false }
            guard let on = SettingsResolver.switchState(text) else {
                throw .invalid(setting: name, reason: "must be true or false, not '\(text)'")
            }
            return on
        }

        guard let server = value("server") else { throw .missing("server") }
        let host = server.drop { $0 != "/" }.dropFirst(2)
        guard server.hasPrefix("http://") || server.hasPrefix("https://"), let first = host.first, first != "/" else {
            throw .invalid(setting: "server", reason: "must be an http:// or https:// URL, not '\(server)'")
        }
        let username = value("user")
        let secret: SecretSource
        if let path = value("token-file") {
            secret = .tokenFile(path)
        } else {
            guard username != nil else { throw .missing("user") }
            if let path = value("password-file") {
                secret = .passwordFile(path)
            } else if try isOn("password-stdin") {
                secret = .passwordStandardInput
            } else {
                throw .missing("password-file")
            }
        }
        let tags = try parseTags(value("tags") ?? "")
        let openCommand = value("open-command").map { $0.split(separator: " ").map(String.init) } ?? defaultOpenCommand
        guard !openCommand.isEmpty else { throw .invalid(setting: "open-command", reason: "is empty") }
        let cacheLimit = try value("cache-size").map { text throws(DaemonConfigurationError) in try parseSize(text) } ?? defaultCacheLimit
        let imageSize = try value("image-size").map { text throws(DaemonConfigurationError) in
            guard let size = Int(text), (16...1024).contains(size) else {
                throw .invalid(setting: "image-size", reason: "must be a number of pixels from 16 to 1024, not '\(text)'")
            }
            return size
        }
        let heartbeatTimeout = try value("heartbeat-timeout").map { text throws(DaemonConfigurationError) in
            guard let seconds = Int(text), (2...3600).contains(seconds) else {
                throw .invalid(setting: "heartbeat-timeout", reason: "must be a number of seconds from 2 to 3600, not '\(text)'")
            }
            return Duration.seconds(seconds)
        }
        return DaemonConfiguration(
            server: server.hasSuffix("/") ? String(server.dropLast()) : server, username: username, secret: secret,
            tags: tags, openCommand: openCommand, cacheLimit: cacheLimit, imageSize: imageSize ?? defaultImageSize,
            heartbeatTimeout: heartbeatTimeout ?? defaultHeartbeatTimeout, caFile: value("ca-file"), once: try isOn("once"),
            verbose: try isOn("verbose"), stateDirectory: xdg("XDG_STATE_HOME", ".local/state") + "/richpush",
            cacheDirectory: xdg("XDG_CACHE_HOME", ".cache") + "/richpush", configFile: configFile)
    }

    private static func parse(_ text: String, path: String) throws(DaemonConfigurationError) -> ConfigFile {
        do {
            return try ConfigFile(parsing: text)
        } catch {
            throw .malformedFile(path, error.description)
        }
    }

    /// Comma-separated tags; the gateway derives `username:`, `installation:` and `platform:` itself.
    static func parseTags(_ text: String) throws(DaemonConfigurationError) -> [String] {
        var tags: [String] = []
        for part in text.split(separator: ",") {
            let tag = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            guard Tag.isValid(tag) else {
                throw .invalid(setting: "tags", reason: "'\(tag)' is not a tag: up to 120 letters, digits or _ @ # . : -")
            }
            guard !["username:", "installation:", "platform:"].contains(where: { tag.hasPrefix($0) }) else {
                throw .invalid(setting: "tags", reason: "'\(tag)' is set by the gateway, not by the device")
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    /// Bytes, or a number with K, M or G (powers of 1024); at least 1 MiB.
    static func parseSize(_ text: String) throws(DaemonConfigurationError) -> Int {
        let units: [Character: Int] = ["K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("IB") { digits = digits.dropLast(2) } else if digits.hasSuffix("B") { digits = digits.dropLast() }
        var multiplier = 1
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number > 0, number <= Int.max / multiplier, number * multiplier >= 1024 * 1024 else {
            throw .invalid(setting: "cache-size", reason: "must be a size of at least 1M, like 64M or 1G, not '\(text)'")
        }
        return number * multiplier
    }
}

/// A configuration that cannot run, with the sentence that says why.
public enum DaemonConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(String)
    case invalid(setting: String, reason: String)
    case unreadableFile(String)
    case malformedFile(String, String)

    public var description: String {
        switch self {
        case .missing("password-file"):
            "no password: give --password-file FILE (or RICHPUSH_PASSWORD_FILE) or --password-stdin, or an API token with --token-file FILE"
        case .missing(let name):
            "--\(name) is required (or RICHPUSH_\(name.uppercased().replacing("-", with: "_")), or '\(name) = …' in richpushd.conf)"
        case .invalid(let setting, let reason): "\(setting) \(reason)"
        case .unreadableFile(let path): "cannot read the config file \(path)"
        case .malformedFile(let path, let reason): "config file \(path), \(reason)"
        }
    }
}
