public import RichPushCore

/// Every setting of `richpushd`, each declared once: its `--help`, the table of docs/daemon.md and ``DaemonConfiguration``
/// read them from here.
public enum DaemonSettings {
    public static let server = Setting.text("server", "The gateway's URL, such as https://push.example.com", defaultText: "required")
    public static let user = Setting.text("user", "The user this device belongs to", defaultText: "required, unless --token-file")
    public static let passwordFile = Setting.text(
        "password-file", "A file holding the user's password", defaultText: "required, unless --password-stdin or --token-file")
    public static let passwordStandardInput = Setting.switch("password-stdin", "Read the password from standard input", defaultText: "off")
    public static let tokenFile = Setting.text(
        "token-file", "A file holding an API token (rp_…) to use instead of a user and password")
    public static let tags = Setting.optional(
        "tags", "Comma-separated tags to register, such as topic:sale,lang:en",
        expected: "comma-separated tags of up to 120 letters, digits or _ @ # . : -, none of them username:, installation: or platform:",
        parse: DaemonConfiguration.parseTags)
    public static let openCommand = Setting<[String]>(
        "open-command", "What opens a payload; the file or URL is appended", default: ["xdg-open"], defaultText: "xdg-open", defaultIsLiteral: true,
        expected: "a program and its arguments"
    ) { text in
        let words = text.split(separator: " ").map(String.init)
        return words.isEmpty ? nil : words
    }
    public static let cacheSize = Setting<Int>(
        "cache-size", "Most bytes of payloads kept in $XDG_CACHE_HOME/richpush, the oldest evicted", default: 64 * 1024 * 1024,
        defaultText: "64M", defaultIsLiteral: true, expected: "a size of at least 1M, like 64M or 1G", parse: DaemonConfiguration.parseSize)
    /// Notification servers show the image as an icon, 48 to 128 pixels even on a HiDPI screen; "More" opens the full
    /// image.
    public static let imageSize = Setting.integer(
        "image-size", "Longest edge in pixels of the image inside an alert", in: 16...1024, default: 128)
    public static let heartbeatTimeout = Setting.duration(
        "heartbeat-timeout", "Silence after which the stream counts as dead (the gateway sends a heartbeat every 15 s)",
        in: .seconds(2)...(.seconds(3600)), default: .seconds(45))
    public static let caFile = Setting.text("ca-file", "Extra CA certificates for an HTTPS gateway", defaultText: "the system's CAs")
    public static let config = Setting.text(
        "config", "The config file of 'name = value' lines, names as the long flags",
        defaultText: "$XDG_CONFIG_HOME/richpush/richpushd.conf", defaultIsLiteral: true)
    public static let once = Setting.switch("once", "Show what arrived since the last run, then exit", defaultText: "off")
    public static let verbose = Setting.switch("verbose", "Log every event, alert and report", defaultText: "off")

    /// In the order of `--help` and the table of docs/daemon.md.
    public static let all: [any SettingDescription] = [
        server, user, passwordFile, passwordStandardInput, tokenFile, tags, openCommand, cacheSize, imageSize, heartbeatTimeout, caFile,
        config, once, verbose,
    ]
}
