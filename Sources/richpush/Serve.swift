import ArgumentParser
import Foundation
import Logging
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
    @Option(help: "Interface to listen on (default 0.0.0.0; env RICHPUSH_HOSTNAME).") var hostname: String?
    @Option(help: "Port to listen on (default 8080; env RICHPUSH_PORT).") var port: String?
    @Option(name: .customLong("public-dir"), help: "The web console's files (default Public; env RICHPUSH_PUBLIC_DIR).")
    var publicDirectory: String?
    @Option(name: .customLong("image-dir"), help: "Bundled images, logo.png among them (default img; env RICHPUSH_IMAGE_DIR).")
    var imageDirectory: String?
    @Option(name: .customLong("max-image-bytes"), help: "Largest image upload (default 10485760; env RICHPUSH_MAX_IMAGE_BYTES).")
    var maximumImageBytes: String?
    @Option(name: .customLong("max-image-pixels"), help: "Most pixels of an image (default 40000000; env RICHPUSH_MAX_IMAGE_PIXELS).")
    var maximumImagePixels: String?
    @Option(name: .customLong("heartbeat-seconds"), help: "Seconds between stream heartbeats (default 15; env RICHPUSH_HEARTBEAT_SECONDS).")
    var heartbeatSeconds: String?
    @Option(
        name: .customLong("dispatch-lease-seconds"),
        help: "How long claimed deliveries wait before another process takes over from a dead one (default 60; env RICHPUSH_DISPATCH_LEASE_SECONDS)."
    )
    var dispatchLeaseSeconds: String?
    @Option(
        name: .customLong("trusted-proxies"),
        help: "Load balancers (addresses or CIDR networks, comma-separated) whose X-Forwarded-For names the client (env RICHPUSH_TRUSTED_PROXIES)."
    )
    var trustedProxies: String?
    @Option(
        name: .customLong("max-installations-per-user"),
        help: "Installations a user may register itself; an admin's import is not limited (default 20; env RICHPUSH_MAX_INSTALLATIONS_PER_USER)."
    )
    var maximumInstallationsPerUser: String?
    @Option(
        name: .customLong("max-streams-per-user"),
        help: "Open streams of one user on this process; a new one closes the oldest (default 10; env RICHPUSH_MAX_STREAMS_PER_USER)."
    )
    var maximumStreamsPerUser: String?
    @Option(
        name: .customLong("rate-limit"),
        help: """
            Requests a minute per user or API token, and a tenth of it per address for requests without valid \
            credentials; payload fetches and streams are not counted; 0 turns it off (default 600; env RICHPUSH_RATE_LIMIT).
            """
    )
    var rateLimit: String?
    @Option(
        name: .customLong("send-rate-limit"),
        help: "New notifications a minute per sender; 0 turns it off (default 60; env RICHPUSH_SEND_RATE_LIMIT).")
    var sendRateLimit: String?
    @Option(
        name: .customLong("max-unauthenticated-connections-per-address"),
        help: """
            Connections one client address may hold before a request on them signs in; trusted proxies are exempt \
            (default 256; env RICHPUSH_MAX_UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS).
            """
    )
    var maximumUnauthenticatedConnections: String?
    @Option(
        name: .customLong("public-url"),
        help: "The gateway's address as devices reach it, for image links in alerts, e.g. https://push.example.com (env RICHPUSH_PUBLIC_URL)."
    )
    var publicURL: String?
    @Option(
        name: .customLong("default-time-zone"),
        help: "The IANA zone of devices without one, for deliveries at a local time (default UTC; env RICHPUSH_DEFAULT_TIME_ZONE)."
    )
    var defaultTimeZone: String?
    @Option(
        name: .customLong("frequency-cap"),
        help: """
            At most N marketers' notifications per user within PERIOD, e.g. 3/24h; those past it end as capped. Members' own \
            and admins' transactional sends are not counted (default off; env RICHPUSH_FREQUENCY_CAP).
            """
    )
    var frequencyCap: String?
    @Option(
        name: .customLong("default-ttl"),
        help: "How long hubs keep a push without expiresAt for an offline device, up to 4w (default 4w; env RICHPUSH_DEFAULT_TTL)."
    )
    var defaultTTL: String?
    @Option(
        name: .customLong("protected-tag-prefixes"),
        help: """
            Comma-separated tag prefixes only marketers and admins assign, as users' segments; devices may not set them \
            (default segment:; env RICHPUSH_PROTECTED_TAG_PREFIXES).
            """
    )
    var protectedTagPrefixes: String?
    @Option(
        name: .customLong("quiet-hours"),
        help: """
            Hours of each device's day, e.g. 22:00-08:00, in which marketers' deliveries wait until they end (default off; \
            env RICHPUSH_QUIET_HOURS).
            """
    )
    var quietHours: String?
    @Option(
        name: .customLong("tls-cert-file"),
        help: "Serve HTTPS (HTTP/1.1 and HTTP/2) with this PEM certificate, its chain after it; SIGHUP reads it again (env RICHPUSH_TLS_CERT_FILE).")
    var tlsCertificateFile: String?
    @Option(name: .customLong("tls-key-file"), help: "The PEM private key of --tls-cert-file (env RICHPUSH_TLS_KEY_FILE).")
    var tlsKeyFile: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info; env RICHPUSH_LOG_LEVEL).")
    var logLevel: String?

    func run() async throws {
        let flags = store.flags.merging(hubs.flags) { first, _ in first }.merging(
            [
                "hostname": hostname, "port": port, "public-dir": publicDirectory, "image-dir": imageDirectory,
                "max-image-bytes": maximumImageBytes, "max-image-pixels": maximumImagePixels, "heartbeat-seconds": heartbeatSeconds,
                "log-level": logLevel, "dispatch-lease-seconds": dispatchLeaseSeconds,
                "trusted-proxies": trustedProxies, "max-installations-per-user": maximumInstallationsPerUser,
                "max-streams-per-user": maximumStreamsPerUser, "rate-limit": rateLimit, "send-rate-limit": sendRateLimit, "public-url": publicURL,
                "default-time-zone": defaultTimeZone,
                "max-unauthenticated-connections-per-address": maximumUnauthenticatedConnections,
                "frequency-cap": frequencyCap, "quiet-hours": quietHours, "default-ttl": defaultTTL,
                "protected-tag-prefixes": protectedTagPrefixes, "tls-cert-file": tlsCertificateFile, "tls-key-file": tlsKeyFile,
            ].compactMapValues { $0 }
        ) { first, _ in first }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(flags: flags, settings: try store.settings())
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        try await runGateway(configuration)
    }
}
