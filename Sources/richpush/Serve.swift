import ArgumentParser
import Logging
import RichPushArguments
import RichPushCore
import RichPushHubs
import RichPushServer

/// `richpush serve`: runs the gateway until SIGTERM or SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway.",
        discussion: """
            Without flags: SQLite in ./data, port 8080 on every interface, the direct channel on and the web console at /. \
            On the first start with an empty store, RICHPUSH_ADMIN_PASSWORD creates the user admin (or RICHPUSH_ADMIN_USER).
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup(title: "Remote hubs") var hubs: HubOptions
    @Option(ServeSettings.hostname) var hostname
    @Option(ServeSettings.port) var port
    @Option(ServeSettings.publicDirectory) var publicDirectory
    @Option(ServeSettings.imageDirectory) var imageDirectory
    @Option(ServeSettings.maximumImageBytes) var maximumImageBytes
    @Option(ServeSettings.maximumImagePixels) var maximumImagePixels
    @Option(ServeSettings.heartbeatInterval) var heartbeatInterval
    @Option(ServeSettings.dispatchLease) var dispatchLease
    @Option(ServeSettings.dispatchBatchSize) var dispatchBatchSize
    @Option(ServeSettings.dispatchBatchesInFlight) var dispatchBatchesInFlight
    @Option(ServeSettings.trustedProxies) var trustedProxies
    @Option(ServeSettings.maximumInstallationsPerUser) var maximumInstallationsPerUser
    @Option(ServeSettings.maximumTemplatesPerUser) var maximumTemplatesPerUser
    @Option(ServeSettings.maximumStreamsPerUser) var maximumStreamsPerUser
    @Option(ServeSettings.rateLimit) var rateLimit
    @Option(ServeSettings.sendRateLimit) var sendRateLimit
    @Option(ServeSettings.maximumUnauthenticatedConnections) var maximumUnauthenticatedConnections
    @Option(ServeSettings.publicURL) var publicURL
    @Option(ServeSettings.corsOrigins) var corsOrigins
    @Option(ServeSettings.defaultTimeZone) var defaultTimeZone
    @Option(ServeSettings.frequencyCap) var frequencyCap
    @Option(ServeSettings.defaultTTL) var defaultTTL
    @Option(ServeSettings.fallbackAfter) var fallbackAfter
    @Option(ServeSettings.payloadEgressLimit) var payloadEgressLimit
    @Flag(ServeSettings.allowCriticalAlerts) var allowCriticalAlerts
    @Option(ServeSettings.protectedTagPrefixes) var protectedTagPrefixes
    @Option(ServeSettings.quietHours) var quietHours
    @Option(ServeSettings.tlsCertificateFile) var tlsCertificateFile
    @Option(ServeSettings.tlsKeyFile) var tlsKeyFile
    @Option(ServeSettings.logLevel) var logLevel
    @Option(ServeSettings.logFormat) var logFormat
    @Option(ServeSettings.otelEndpoint) var otelEndpoint

    /// The flags given: every option's, the store's and the hubs' among them, and the switches.
    var given: GivenFlags {
        var flags = GivenFlags(options: self)
        flags.add(ServeHubSettings.allowPrivatePushEndpoints, hubs.allowPrivatePushEndpoints)
        flags.add(ServeSettings.allowCriticalAlerts, allowCriticalAlerts)
        return flags
    }

    func run() async throws {
        let sources = try SettingSources.load(given, configFile: ServeSettings.config, known: ServeSettings.all, command: "richpush serve")
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(sources)
        } catch {
            throw ValidationError(error.description)
        }
        switch configuration.logFormat {
        case .text: LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        case .json: LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        }
        try await runGateway(configuration)
    }
}
