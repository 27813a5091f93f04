public import Foundation
public import Logging
public import RichPushCore
public import RichPushHubs
import RichPushImaging

/// Every setting of `richpush serve`, each declared once: `richpush serve --help`, the table of docs/configuration.md and
/// ``ServerConfiguration`` read them from here.
public enum ServeSettings {
    // Where the store is; `richpush user add` takes these too, so both reach the same data.
    public static let dataDirectory = Setting<String>.text("data-dir", "Directory of the SQLite store", default: "./data")
    public static let databaseURL = Setting.text("database-url", "postgres://… selects PostgreSQL instead of SQLite")
    public static let config = Setting.text("config", "A file of 'name = value' lines, names as the long flags")

    public static let hostname = Setting<String>.text("hostname", "Interface to listen on", default: "0.0.0.0")
    public static let port = Setting.integer("port", "Port to listen on", in: 0...65535, default: 8080)
    public static let publicDirectory = Setting<String>.text("public-dir", "The web console's files", default: "Public")
    public static let imageDirectory = Setting<String>.text("image-dir", "Bundled images, logo.png among them", default: "img")
    public static let maximumImageBytes = Setting.integer(
        "max-image-bytes", "Largest image upload, in bytes", in: 1024...1 << 30, default: ImageLimits().maximumBytes)
    public static let maximumImagePixels = Setting.integer(
        "max-image-pixels", "Most pixels of an uploaded image", in: 1...1_000_000_000, default: ImageLimits().maximumPixels)
    public static let heartbeatInterval = Setting.duration(
        "heartbeat-interval", "Time between the comment lines that keep an idle stream open", in: .seconds(1)...(.seconds(3600)),
        default: .seconds(15))
    public static let dispatchLease = Setting.duration(
        "dispatch-lease", "How long deliveries a dead process claimed wait before another process sends them",
        in: .seconds(5)...(.seconds(3600)), default: .seconds(60))
    public static let dispatchBatchSize = Setting.integer(
        "dispatch-batch-size", "Deliveries a dispatcher claims at once, in one transaction", in: 1...10_000, default: 1000)
    public static let dispatchBatchesInFlight = Setting.integer(
        "dispatch-batches-in-flight", "Claimed batches on their way to the hubs at once", in: 1...64, default: 16)
    public static let trustedProxies = Setting.optional(
        "trusted-proxies", "Load balancers whose X-Forwarded-For names the client, comma-separated",
        expected: "addresses or CIDR networks, comma-separated, such as 10.0.0.0/8,::1", parse: TrustedProxies.init(parsing:))
    public static let maximumInstallationsPerUser = Setting.integer(
        "max-installations-per-user", "Installations a user may register itself; an admin's import is not limited", in: 1...100_000,
        default: 20)
    public static let maximumTemplatesPerUser = Setting.integer(
        "max-templates-per-user", "Templates a marketer may create; its further versions of them are not counted", in: 1...100_000,
        default: 100)
    public static let maximumStreamsPerUser = Setting.integer(
        "max-streams-per-user", "Open streams of one user on this process; a new one closes the oldest", in: 1...1_000_000, default: 10)
    public static let rateLimit = Setting.integer(
        "rate-limit",
        "Requests a minute per user or API token, a tenth of it per address for requests without valid credentials; payload "
            + "fetches and streams are not counted; 0 turns it off", in: 0...10_000_000, default: 600)
    public static let sendRateLimit = Setting.integer(
        "send-rate-limit", "New notifications a minute per sender; 0 turns it off", in: 0...10_000_000, default: 60)
    public static let maximumUnauthenticatedConnections = Setting.integer(
        "max-unauthenticated-connections-per-address",
        "Connections one client address may hold before a request on them signs in; trusted proxies are exempt", in: 1...1_000_000,
        default: 256)
    public static let publicURL = Setting.optional(
        "public-url", "The gateway's address as devices reach it, for image links in alerts",
        expected: "an absolute http or https URL such as https://push.example.com", parse: publicURLText)
    public static let otelEndpoint = Setting.optional(
        "otel-endpoint", "An OpenTelemetry collector's OTLP/HTTP address: traces of each notification's path go to its /v1/traces",
        expected: "an absolute http or https URL such as http://collector:4318", defaultText: "off", parse: publicURLText)
    public static let corsOrigins = Setting.optional(
        "cors-origins", "Web origins whose pages may call the API and open streams with credentials, comma-separated",
        expected: "http or https origins without a path, comma-separated, such as https://app.example.com,http://localhost:3000",
        defaultText: "none", parse: CORSPolicy.init(parsing:))
    public static let defaultTimeZone = Setting<TimeZone>(
        "default-time-zone", "The IANA zone of devices without one, for deliveries at a local time", default: TimeZone(identifier: "UTC")!,
        defaultText: "UTC", defaultIsLiteral: true, expected: "an IANA time zone such as Europe/Berlin or UTC", parse: TimeZone.init(identifier:))
    public static let frequencyCap = Setting.optional(
        "frequency-cap",
        "At most N marketers' notifications per user within PERIOD, such as 3/24h; those past it end as capped; members' own "
            + "and admins' transactional sends are not counted", expected: "a count and a period such as 3/24h or 1/7d", defaultText: "off",
        parse: FrequencyCap.init(parsing:))
    public static let defaultTTL = Setting.duration(
        "default-ttl", "How long hubs keep a push without expiresAt for an offline device", in: .seconds(1)...(.seconds(28 * 86_400)),
        default: .seconds(28 * 86_400))
    public static let payloadEgressLimit = Setting.optional(
        "payload-egress-limit",
        "Bytes a second of payloads served, by every process sharing the store, at which the dispatcher holds image campaigns' "
            + "pushes back until the fetches slow", expected: "a whole number of bytes a second, such as 50000000", defaultText: "off"
    ) { text -> Int? in Int(text).flatMap { $0 > 0 ? $0 : nil } }
    public static let fallbackAfter = Setting.optional(
        "fallback-after",
        "The fetch deadline of silent pushes that name none: a remote device that has not fetched the payload this long after its "
            + "silent push gets one alert", expected: "a duration from 1m to 24h such as 10m, or an ISO 8601 one such as PT10M",
        defaultText: "off"
    ) { text -> TimeInterval? in
        guard let seconds = DurationText.seconds(in: text) ?? ISODuration.seconds(in: text), FallbackJSON.afterRange.contains(seconds)
        else { return nil }
        return seconds
    }
    public static let allowCriticalAlerts = Setting.switch(
        "allow-critical-alerts",
        "Let admins send interruptionLevel critical, which sounds through silent mode and focus (Apple grants the entitlement for "
            + "health and safety alerts only)", defaultText: "off")
    public static let protectedTagPrefixes = Setting<[String]>(
        "protected-tag-prefixes", "Comma-separated tag prefixes only marketers and admins assign, as users' segments; devices may not set them",
        default: ["segment:"], defaultText: "segment:", defaultIsLiteral: true,
        expected: "tag prefixes ending in ':' such as segment:,tier: (not username:, installation:…)"
    ) { text in
        let prefixes = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return prefixes.allSatisfy { $0.hasSuffix(":") && Tag.isValid($0 + "x") && Tag.reservedPrefix(of: $0 + "x") == nil } ? prefixes : nil
    }
    public static let quietHours = Setting.optional(
        "quiet-hours", "Hours of each device's day, such as 22:00-08:00, in which marketers' deliveries wait until they end",
        expected: "a span of the day such as 22:00-08:00", defaultText: "off", parse: QuietHours.init(parsing:))
    public static let tlsCertificateFile = Setting.text(
        "tls-cert-file", "Serve HTTPS (HTTP/1.1 and HTTP/2) with this PEM certificate, its chain after it; SIGHUP reads it again",
        defaultText: "plain HTTP")
    public static let tlsKeyFile = Setting.text("tls-key-file", "The PEM private key of --tls-cert-file")
    public static let logLevel = Setting<Logger.Level>(
        "log-level", "How much the log says", default: .info, defaultText: "info", defaultIsLiteral: true,
        expected: "one of " + Logger.Level.allCases.map(\.rawValue).joined(separator: ", "), parse: Logger.Level.init(rawValue:))
    public static let logFormat = Setting<LogFormat>(
        "log-format", "How log lines are written to standard error: text, or one JSON object a line for log shippers", default: .text,
        defaultText: "text", defaultIsLiteral: true, expected: "text or json", parse: LogFormat.init(rawValue:))
    /// The first admin, created on the first start of an empty store: from the environment or the file, never a flag
    /// (other users see flags in `ps`).
    public static let adminUser = Setting<String>(
        "admin-user", "The first admin's username", default: "admin", defaultText: "admin", defaultIsLiteral: true,
        expected: "a username: 1 to 64 letters, digits or _ . @ -",
        hasFlag: false
    ) { Identifier.isValid($0) ? $0 : nil }
    public static let adminPassword = Setting.text("admin-password", "The first admin's password", hasFlag: false)

    /// In the order of `--help` and the table of docs/configuration.md.
    public static let all: [any SettingDescription] =
        [
            dataDirectory, databaseURL, config, hostname, port, publicDirectory, imageDirectory, maximumImageBytes, maximumImagePixels,
            heartbeatInterval, dispatchLease, dispatchBatchSize, dispatchBatchesInFlight, trustedProxies, maximumInstallationsPerUser,
            maximumTemplatesPerUser,
            maximumStreamsPerUser, rateLimit, sendRateLimit,
            maximumUnauthenticatedConnections, publicURL, corsOrigins, defaultTimeZone, frequencyCap, defaultTTL, fallbackAfter, payloadEgressLimit,
            allowCriticalAlerts, protectedTagPrefixes,
            quietHours,
            tlsCertificateFile, tlsKeyFile, logLevel, logFormat, otelEndpoint, adminUser, adminPassword,
        ] + ServeHubSettings.all

    /// `/etc/richpush/richpush.conf` as the Debian package installs it (`dist/richpush.conf`, which a test holds to
    /// this): the store in the system unit's state directory, every other setting at its default, commented out.
    public static var packagedConfigFile: String {
        SettingTable.configFile(
            all, chosen: ["data-dir": "/var/lib/richpush"],
            header: """
                The settings of `richpush serve` as the system unit runs it (`systemctl restart richpush` after a change).
                One `name = value` a line, names as the flags (`man richpush.serve`); a flag or its RICHPUSH_* variable
                wins over a line. Secrets (admin-password, hub keys) may be set here: the file is readable by root and
                the richpush group alone.
                """)
    }

    /// The settings of `richpush user add`'s store: it opens the store `serve` with the same settings uses.
    public static let store: [any SettingDescription] = [dataDirectory, databaseURL, config]

    /// An absolute http or https URL without query or fragment, without its trailing slash.
    private static func publicURLText(_ text: String) -> String? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
            url.query == nil, url.fragment == nil
        else { return nil }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
