import ArgumentParser
import Logging
import RichPushDaemon

@main
struct RichPushDaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "richpushd",
        abstract: "The richpush client for Linux desktops: rich notifications as desktop alerts with the image inside.",
        discussion: """
            Registers this device as a direct installation, follows the user's stream and shows every rich \
            notification as a freedesktop notification; "More" opens the full image, and dismissing an alert here \
            dismisses it on the user's other devices. Without a session bus or notification server, alerts go to \
            standard output.

            Every flag also has an environment form (--cache-size ↔ RICHPUSH_CACHE_SIZE) and a key in \
            ~/.config/richpush/richpushd.conf ('cache-size = 64M'). A flag wins over the environment, the \
            environment over the file, the file over the default. The password is read from --password-file or, \
            with --password-stdin, from standard input; one trailing newline is not part of it. An API token \
            (--token-file) stands in for both user and password.

            State (the installation id, the stream position) lives in $XDG_STATE_HOME/richpush, payloads in \
            $XDG_CACHE_HOME/richpush.
            """
    )

    @Option(help: "The gateway's URL, e.g. https://push.example.com (env RICHPUSH_SERVER).") var server: String?
    @Option(help: "The user this device belongs to (env RICHPUSH_USER).") var user: String?
    @Option(name: .customLong("password-file"), help: "A file holding the user's password (env RICHPUSH_PASSWORD_FILE).")
    var passwordFile: String?
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (env RICHPUSH_PASSWORD_STDIN).")
    var passwordStandardInput = false
    @Option(
        name: .customLong("token-file"),
        help: "A file holding an API token (rp_…) to use instead of a user and password (env RICHPUSH_TOKEN_FILE).")
    var tokenFile: String?
    @Option(help: "Comma-separated tags to register, e.g. topic:sale,lang:en (env RICHPUSH_TAGS).") var tags: String?
    @Option(
        name: .customLong("open-command"), help: "What opens a payload; the file or URL is appended (default xdg-open; env RICHPUSH_OPEN_COMMAND).")
    var openCommand: String?
    @Option(name: .customLong("cache-size"), help: "Most bytes of payloads kept, e.g. 64M (default 64M; env RICHPUSH_CACHE_SIZE).")
    var cacheSize: String?
    @Option(name: .customLong("image-size"), help: "Longest edge in pixels of the image inside an alert (default 128; env RICHPUSH_IMAGE_SIZE).")
    var imageSize: String?
    @Option(
        name: .customLong("heartbeat-timeout"),
        help: "Seconds of silence after which the stream counts as dead (default 45; env RICHPUSH_HEARTBEAT_TIMEOUT).")
    var heartbeatTimeout: String?
    @Option(name: .customLong("ca-file"), help: "Extra CA certificates for an HTTPS gateway (env RICHPUSH_CA_FILE).") var caFile: String?
    @Option(help: "The config file (default ~/.config/richpush/richpushd.conf; env RICHPUSH_CONFIG).") var config: String?
    @Flag(help: "Show what arrived since the last run, then exit (env RICHPUSH_ONCE).") var once = false
    @Flag(name: [.short, .long], help: "Log every event, alert and report (env RICHPUSH_VERBOSE).") var verbose = false

    func run() throws {
        let environment = ProcessEnvironment.current()
        let flags = [
            "server": server, "user": user, "password-file": passwordFile, "token-file": tokenFile, "tags": tags, "open-command": openCommand,
            "cache-size": cacheSize, "image-size": imageSize, "heartbeat-timeout": heartbeatTimeout, "ca-file": caFile,
            "config": config,
        ].compactMapValues { $0 }
        var switches: Set<String> = []
        if passwordStandardInput { switches.insert("password-stdin") }
        if once { switches.insert("once") }
        if verbose { switches.insert("verbose") }
        let configuration: DaemonConfiguration
        let credential: GatewayCredential
        do {
            configuration = try DaemonConfiguration.resolve(flags: flags, switches: switches, environment: environment) { path in
                try? FileText.read(path)
            }
            credential = try configuration.credential()
        } catch {
            throw ValidationError(error.description)
        }
        let journal = environment["JOURNAL_STREAM"] != nil
        let level: Logger.Level = configuration.verbose ? .debug : .info
        LoggingSystem.bootstrap { _ in DaemonLogHandler(level: level, journal: journal) }
        let logger = Logger(label: "richpushd")
        if configuration.secret.isReadableByOthers {
            logger.warning("the \(configuration.secret.setting) file is readable by other users; chmod 600 it")
        }
        let status = Daemon(configuration: configuration, credential: credential, environment: environment, logger: logger).run()
        if status != 0 { throw ExitCode(status) }
    }
}
