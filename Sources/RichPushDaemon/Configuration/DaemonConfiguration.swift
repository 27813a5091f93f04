public import RichPushCore

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

    public static let defaultOpenCommand = DaemonSettings.openCommand.defaultValue
    public static let defaultCacheLimit = DaemonSettings.cacheSize.defaultValue
    public static let defaultImageSize = DaemonSettings.imageSize.defaultValue
    public static let defaultHeartbeatTimeout = DaemonSettings.heartbeatTimeout.defaultValue

    /// Resolves the configuration from ``DaemonSettings``.
    /// - Parameters:
    ///   - flags: the flags given.
    ///   - environment: the process environment (`HOME`, `XDG_*`, `RICHPUSH_*`).
    ///   - readFile: reads a file's text, nil when it does not exist or cannot be read.
    public static func resolve(
        flags: GivenFlags, environment: [String: String], readFile: (String) -> String?
    ) throws(SettingError) -> DaemonConfiguration {
        typealias S = DaemonSettings
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        func xdg(_ variable: String, _ fallback: String) -> String {
            guard let value = environment[variable], value.hasPrefix("/") else { return home + "/" + fallback }
            return value
        }
        let sources = try SettingSources.load(
            flags: flags, environment: environment, configFile: S.config,
            standardPath: xdg("XDG_CONFIG_HOME", ".config") + "/richpush/richpushd.conf", known: Set(S.all.map(\.name)),
            program: "richpushd", readFile: readFile)
        let server = try sources.required(S.server, "the gateway's URL, such as https://push.example.com")
        let host = server.drop { $0 != "/" }.dropFirst(2)
        guard server.hasPrefix("http://") || server.hasPrefix("https://"), let first = host.first, first != "/" else {
            throw SettingError("--server must be an http:// or https:// URL, not '\(server)'")
        }
        let username = try sources.value(S.user)
        let secret: SecretSource
        if let path = try sources.value(S.tokenFile) {
            secret = .tokenFile(path)
        } else {
            guard username != nil else { throw .missing(S.user.name, "the user this device belongs to (or give --token-file)") }
            if let path = try sources.value(S.passwordFile) {
                secret = .passwordFile(path)
            } else if try sources.value(S.passwordStandardInput) {
                secret = .passwordStandardInput
            } else {
                throw SettingError(
                    "no password: give --password-file FILE (or RICHPUSH_PASSWORD_FILE) or --password-stdin, or an API token with "
                        + "--token-file FILE")
            }
        }
        return DaemonConfiguration(
            server: server.hasSuffix("/") ? String(server.dropLast()) : server, username: username, secret: secret,
            tags: try sources.value(S.tags) ?? [], openCommand: try sources.value(S.openCommand), cacheLimit: try sources.value(S.cacheSize),
            imageSize: try sources.value(S.imageSize), heartbeatTimeout: try sources.value(S.heartbeatTimeout), caFile: try sources.value(S.caFile),
            once: try sources.value(S.once), verbose: try sources.value(S.verbose),
            stateDirectory: xdg("XDG_STATE_HOME", ".local/state") + "/richpush",
            cacheDirectory: xdg("XDG_CACHE_HOME", ".cache") + "/richpush", configFile: sources.filePath)
    }

    /// Comma-separated tags; the gateway derives `username:`, `installation:` and `platform:` itself. Nil when one is
    /// not a tag or is one of those.
    static func parseTags(_ text: String) -> [String]? {
        var tags: [String] = []
        for part in text.split(separator: ",") {
            let tag = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            guard Tag.isValid(tag), !["username:", "installation:", "platform:"].contains(where: { tag.hasPrefix($0) }) else { return nil }
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    /// Bytes, or a number with K, M or G (powers of 1024); at least 1 MiB. Nil for anything else.
    static func parseSize(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("IB") { digits = digits.dropLast(2) } else if digits.hasSuffix("B") { digits = digits.dropLast() }
        var multiplier = 1
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number > 0, number <= Int.max / multiplier, number * multiplier >= 1024 * 1024 else { return nil }
        return number * multiplier
    }
}
