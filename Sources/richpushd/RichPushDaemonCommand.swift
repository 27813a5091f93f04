import ArgumentParser
import Logging
import RichPushArguments
import RichPushCore
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
            """,
        version: Release.version
    )

    @Option(DaemonSettings.server) var server
    @Option(DaemonSettings.user) var user
    @Option(DaemonSettings.passwordFile) var passwordFile
    @Option(DaemonSettings.tokenFile) var tokenFile
    @Option(DaemonSettings.tags) var tags
    @Option(DaemonSettings.openCommand) var openCommand
    @Option(DaemonSettings.cacheSize) var cacheSize
    @Option(DaemonSettings.imageSize) var imageSize
    @Option(DaemonSettings.heartbeatTimeout) var heartbeatTimeout
    @Option(DaemonSettings.caFile) var caFile
    @Option(DaemonSettings.config) var config
    @Flag(DaemonSettings.passwordStandardInput) var passwordStandardInput
    @Flag(DaemonSettings.once) var once
    @Flag(name: [.short, .setting(DaemonSettings.verbose)], help: .setting(DaemonSettings.verbose)) var verbose = false

    func run() throws {
        let environment = ProcessEnvironment.current()
        var flags = GivenFlags(options: self)
        flags.add(DaemonSettings.passwordStandardInput, passwordStandardInput)
        flags.add(DaemonSettings.once, once)
        flags.add(DaemonSettings.verbose, verbose)
        let configuration: DaemonConfiguration
        let credential: GatewayCredential
        do {
            configuration = try DaemonConfiguration.resolve(flags: flags, environment: environment) { path in try? FileText.read(path) }
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
