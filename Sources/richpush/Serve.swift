import ArgumentParser
import Logging
import RichPushArguments
import RichPushCore
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
    @Option(name: .setting(ServeSettings.hostname), help: .setting(ServeSettings.hostname)) var hostname: String?
    @Option(name: .setting(ServeSettings.port), help: .setting(ServeSettings.port)) var port: String?
    @Option(name: .setting(ServeSettings.publicDirectory), help: .setting(ServeSettings.publicDirectory)) var publicDirectory: String?
    @Option(name: .setting(ServeSettings.imageDirectory), help: .setting(ServeSettings.imageDirectory)) var imageDirectory: String?
    @Option(name: .setting(ServeSettings.maximumImageBytes), help: .setting(ServeSettings.maximumImageBytes)) var maximumImageBytes: String?
    @Option(name: .setting(ServeSettings.maximumImagePixels), help: .setting(ServeSettings.maximumImagePixels)) var maximumImagePixels: String?
    @Option(name: .setting(ServeSettings.heartbeatInterval), help: .setting(ServeSettings.heartbeatInterval)) var heartbeatInterval: String?
    @Option(name: .setting(ServeSettings.dispatchLease), help: .setting(ServeSettings.dispatchLease)) var dispatchLease: String?
    @Option(name: .setting(ServeSettings.dispatchBatchSize), help: .setting(ServeSettings.dispatchBatchSize)) var dispatchBatchSize: String?
    @Option(name: .setting(ServeSettings.dispatchBatchesInFlight), help: .setting(ServeSettings.dispatchBatchesInFlight))
    var dispatchBatchesInFlight: String?
    @Option(name: .setting(ServeSettings.trustedProxies), help: .setting(ServeSettings.trustedProxies)) var trustedProxies: String?
    @Option(name: .setting(ServeSettings.maximumInstallationsPerUser), help: .setting(ServeSettings.maximumInstallationsPerUser))
    var maximumInstallationsPerUser: String?
    @Option(name: .setting(ServeSettings.maximumTemplatesPerUser), help: .setting(ServeSettings.maximumTemplatesPerUser))
    var maximumTemplatesPerUser: String?
    @Option(name: .setting(ServeSettings.maximumStreamsPerUser), help: .setting(ServeSettings.maximumStreamsPerUser)) var maximumStreamsPerUser:
        String?
    @Option(name: .setting(ServeSettings.rateLimit), help: .setting(ServeSettings.rateLimit)) var rateLimit: String?
    @Option(name: .setting(ServeSettings.sendRateLimit), help: .setting(ServeSettings.sendRateLimit)) var sendRateLimit: String?
    @Option(name: .setting(ServeSettings.maximumUnauthenticatedConnections), help: .setting(ServeSettings.maximumUnauthenticatedConnections))
    var maximumUnauthenticatedConnections: String?
    @Option(name: .setting(ServeSettings.publicURL), help: .setting(ServeSettings.publicURL)) var publicURL: String?
    @Option(name: .setting(ServeSettings.defaultTimeZone), help: .setting(ServeSettings.defaultTimeZone)) var defaultTimeZone: String?
    @Option(name: .setting(ServeSettings.frequencyCap), help: .setting(ServeSettings.frequencyCap)) var frequencyCap: String?
    @Option(name: .setting(ServeSettings.defaultTTL), help: .setting(ServeSettings.defaultTTL)) var defaultTTL: String?
    @Option(name: .setting(ServeSettings.protectedTagPrefixes), help: .setting(ServeSettings.protectedTagPrefixes)) var protectedTagPrefixes: String?
    @Option(name: .setting(ServeSettings.quietHours), help: .setting(ServeSettings.quietHours)) var quietHours: String?
    @Option(name: .setting(ServeSettings.tlsCertificateFile), help: .setting(ServeSettings.tlsCertificateFile)) var tlsCertificateFile: String?
    @Option(name: .setting(ServeSettings.tlsKeyFile), help: .setting(ServeSettings.tlsKeyFile)) var tlsKeyFile: String?
    @Option(name: .setting(ServeSettings.logLevel), help: .setting(ServeSettings.logLevel)) var logLevel: String?

    var given: GivenFlags {
        var flags = GivenFlags()
        flags.add(ServeSettings.hostname, hostname)
        flags.add(ServeSettings.port, port)
        flags.add(ServeSettings.publicDirectory, publicDirectory)
        flags.add(ServeSettings.imageDirectory, imageDirectory)
        flags.add(ServeSettings.maximumImageBytes, maximumImageBytes)
        flags.add(ServeSettings.maximumImagePixels, maximumImagePixels)
        flags.add(ServeSettings.heartbeatInterval, heartbeatInterval)
        flags.add(ServeSettings.dispatchLease, dispatchLease)
        flags.add(ServeSettings.dispatchBatchSize, dispatchBatchSize)
        flags.add(ServeSettings.dispatchBatchesInFlight, dispatchBatchesInFlight)
        flags.add(ServeSettings.trustedProxies, trustedProxies)
        flags.add(ServeSettings.maximumInstallationsPerUser, maximumInstallationsPerUser)
        flags.add(ServeSettings.maximumTemplatesPerUser, maximumTemplatesPerUser)
        flags.add(ServeSettings.maximumStreamsPerUser, maximumStreamsPerUser)
        flags.add(ServeSettings.rateLimit, rateLimit)
        flags.add(ServeSettings.sendRateLimit, sendRateLimit)
        flags.add(ServeSettings.maximumUnauthenticatedConnections, maximumUnauthenticatedConnections)
        flags.add(ServeSettings.publicURL, publicURL)
        flags.add(ServeSettings.defaultTimeZone, defaultTimeZone)
        flags.add(ServeSettings.frequencyCap, frequencyCap)
        flags.add(ServeSettings.defaultTTL, defaultTTL)
        flags.add(ServeSettings.protectedTagPrefixes, protectedTagPrefixes)
        flags.add(ServeSettings.quietHours, quietHours)
        flags.add(ServeSettings.tlsCertificateFile, tlsCertificateFile)
        flags.add(ServeSettings.tlsKeyFile, tlsKeyFile)
        flags.add(ServeSettings.logLevel, logLevel)
        return flags.merging(store.given).merging(hubs.given)
    }

    func run() async throws {
        let sources = try SettingSources.load(given, configFile: ServeSettings.config, known: ServeSettings.all, command: "richpush serve")
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(sources)
        } catch {
            throw ValidationError(error.description)
        }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        try await runGateway(configuration)
    }
}
