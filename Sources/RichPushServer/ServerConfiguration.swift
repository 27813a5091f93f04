public import Foundation
public import Logging
public import RichPushCore
public import RichPushHubs
public import RichPushImaging
public import RichPushStore

/// Everything `richpush serve` can be told, resolved from flags, environment, config file and defaults.
public struct ServerConfiguration: Sendable {
    public var hostname = "0.0.0.0"
    public var port = 8080
    /// Where the embedded SQLite store lives.
    public var dataDirectory = "./data"
    /// `postgres://…` selects PostgreSQL; nil means SQLite under ``dataDirectory``.
    public var databaseURL: String?
    /// The web console's static files.
    public var publicDirectory = "Public"
    /// Bundled images; `logo.png` is the tutorial's default payload.
    public var imageDirectory = "img"
    public var imageLimits = ImageLimits()
    /// Created with role admin on the first start of an empty store when ``adminPassword`` is set.
    public var adminUsername = "admin"
    public var adminPassword: String?
    public var logLevel = Logger.Level.info
    /// How often an idle stream carries a comment line.
    public var heartbeatInterval: Duration = .seconds(15)
    /// How long a verified credential is trusted before its stored hash is read again.
    public var credentialRevalidation: TimeInterval = 2
    /// Only tests lower it, to keep hundreds of sign-ins fast; everything else hashes at the production cost.
    var bcryptCost = PasswordHasher.productionCost
    /// How long an idle dispatcher waits before looking for scheduled work.
    public var dispatchIdleInterval: Duration = .seconds(1)
    /// How long deliveries claimed by a dispatcher are its own: if its process dies, another process sends them once
    /// this has passed. It must exceed the time one batch takes to reach its hubs.
    public var dispatchLease: TimeInterval = 60
    /// Load balancers whose `X-Forwarded-For` names the client that the login throttle counts by.
    public var trustedProxies = TrustedProxies()
    /// The most installations a user registers itself; an admin's import is not limited.
    public var maximumInstallationsPerUser = 20
    /// The most open streams of one user on this process; a new one closes the oldest.
    public var maximumStreamsPerUser = 10
    /// Requests a minute per user or token (a tenth of it per address without valid credentials); 0 is no limit.
    public var rateLimit = 600
    /// New notifications a minute per sender; 0 is no limit.
    public var sendRateLimit = 60
    /// The most connections one address may hold open before a request on them signs in; trusted proxies are not
    /// limited.
    public var maximumUnauthenticatedConnectionsPerAddress = 256
    /// How long a request's header may take to arrive whole.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a connection may stay open with no request on it (streams are requests, and stay).
    public var idleTimeout: Duration = .seconds(60)
    /// The gateway's address as devices reach it (`https://push.example.com`): alert pushes that show the image link
    /// to it absolutely. Nil: such alerts carry no image link.
    public var publicURL: String?
    /// The zone of installations without a known one, for deliveries at a local time.
    public var defaultTimeZone = TimeZone(identifier: "UTC")!
    /// How long the payload path serves a notification from memory: a recall on another process reaches its fetches
    /// within this time. Not a setting; tests that watch the fast path lengthen it and `credentialRevalidation`, so a
    /// loaded machine cannot let either lapse between two fetches.
    var payloadNotificationTimeToLive: TimeInterval = 1
    /// Tag prefixes only marketers and admins assign, as a user's segments; no device sets such a tag itself.
    public var protectedTagPrefixes = ["segment:"]
    /// How long hubs keep the push of a notification without `expiresAt` for a device that is offline.
    public var defaultTTL: TimeInterval = 28 * 86_400
    /// The PEM files HTTPS is served with; nil: plain HTTP.
    public var tlsFiles: TLSFiles?
    /// What the gateway takes for now when it schedules, releases and retries; tests move it forward.
    public var clock: any WallClock = SystemWallClock()
    /// At most so many marketers' notifications per user within a period; nil: no cap.
    public var frequencyCap: FrequencyCap?
    /// Hours of each device's day in which marketers' deliveries wait; nil: none.
    public var quietHours: QuietHours?
    /// APNs, FCM and Notification Hubs; each is off unless configured.
    public var hubs = HubSettings()

    public init() {}

    /// What holds marketers' notifications back in the dispatchers.
    public var campaignLimits: CampaignLimits {
        CampaignLimits(frequencyCap: frequencyCap, quietHours: quietHours, defaultTimeZone: defaultTimeZone)
    }

    /// Whether only this machine can reach the listening address, so plain HTTP carries no credential across a network.
    var listensOnLoopbackOnly: Bool {
        hostname == "localhost" || hostname == "::1" || hostname.hasPrefix("127.")
    }

    /// Resolves every setting: a flag wins over the environment (`RICHPUSH_*`), that over the config file, that
    /// over the default. `flags` holds the long flag names given on the command line.
    public init(flags: [String: String], settings: SettingsResolver) throws(ConfigurationError) {
        func value(_ name: String) -> String? { settings.value(name, flagValue: flags[name]) }
        func integer(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            guard let text = value(name) else { return nil }
            guard let number = Int(text), range.contains(number) else {
                throw ConfigurationError("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
        if let hostname = value("hostname") { self.hostname = hostname }
        if let port = try integer("port", in: 0...65535) { self.port = port }
        if let dataDirectory = value("data-dir") { self.dataDirectory = dataDirectory }
        databaseURL = value("database-url")
        if let publicDirectory = value("public-dir") { self.publicDirectory = publicDirectory }
        if let imageDirectory = value("image-dir") { self.imageDirectory = imageDirectory }
        if let bytes = try integer("max-image-bytes", in: 1024...1 << 30) { imageLimits.maximumBytes = bytes }
        if let pixels = try integer("max-image-pixels", in: 1...1_000_000_000) { imageLimits.maximumPixels = pixels }
        if let user = value("admin-user") {
            guard Identifier.isValid(user) else { throw ConfigurationError("admin-user '\(user)' is not a valid username") }
            adminUsername = user
        }
        adminPassword = value("admin-password")
        if let level = value("log-level") {
            guard let parsed = Logger.Level(rawValue: level) else {
                throw ConfigurationError("log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            logLevel = parsed
        }
        if let seconds = try integer("heartbeat-seconds", in: 1...3600) { heartbeatInterval = .seconds(seconds) }
        if let seconds = try integer("dispatch-lease-seconds", in: 5...3600) { dispatchLease = TimeInterval(seconds) }
        if let url = value("public-url") {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host?.isEmpty == false,
                parsed.query == nil, parsed.fragment == nil
            else { throw ConfigurationError("public-url must be an absolute http or https URL such as https://push.example.com, not '\(url)'") }
            publicURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        if let zone = value("default-time-zone") {
            guard let timeZone = TimeZone(identifier: zone) else {
                throw ConfigurationError("default-time-zone must be an IANA time zone such as Europe/Berlin or UTC, not '\(zone)'")
            }
            defaultTimeZone = timeZone
        }
        if let prefixes = value("protected-tag-prefixes") {
            let parsed = prefixes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard parsed.allSatisfy({ $0.hasSuffix(":") && Tag.isValid($0 + "x") && Tag.reservedPrefix(of: $0 + "x") == nil }) else {
                throw ConfigurationError(
                    "protected-tag-prefixes must be tag prefixes ending in ':' such as segment:,tier: (not username:, installation:…), not '\(prefixes)'"
                )
            }
            protectedTagPrefixes = parsed
        }
        if let ttl = value("default-ttl") {
            guard let seconds = DurationText.seconds(in: ttl), (1...28 * 86_400).contains(seconds) else {
                throw ConfigurationError("default-ttl must be a duration from 1s to 4w such as 1d or 2w, not '\(ttl)'")
            }
            defaultTTL = seconds
        }
        if let cap = value("frequency-cap") {
            guard let parsed = FrequencyCap(parsing: cap) else {
                throw ConfigurationError("frequency-cap must be a count and a period such as 3/24h or 1/7d, not '\(cap)'")
            }
            frequencyCap = parsed
        }
        if let hours = value("quiet-hours") {
            guard let parsed = QuietHours(parsing: hours) else {
                throw ConfigurationError("quiet-hours must be a span of the day such as 22:00-08:00, not '\(hours)'")
            }
            quietHours = parsed
        }
        if let proxies = value("trusted-proxies") { trustedProxies = try TrustedProxies(parsing: proxies) }
        if let count = try integer("max-installations-per-user", in: 1...100_000) { maximumInstallationsPerUser = count }
        if let count = try integer("max-streams-per-user", in: 1...1_000_000) { maximumStreamsPerUser = count }
        if let count = try integer("rate-limit", in: 0...10_000_000) { rateLimit = count }
        if let count = try integer("send-rate-limit", in: 0...10_000_000) { sendRateLimit = count }
        if let count = try integer("max-unauthenticated-connections-per-address", in: 1...1_000_000) {
            maximumUnauthenticatedConnectionsPerAddress = count
        }
        hubs.apnsKeyFile = value("apns-key-file")
        hubs.apnsKeyId = value("apns-key-id")
        hubs.apnsTeamId = value("apns-team-id")
        hubs.apnsTopic = value("apns-topic")
        if let endpoint = value("apns-endpoint") { hubs.apnsEndpoint = endpoint }
        hubs.fcmServiceAccountFile = value("fcm-service-account-file")
        if let endpoint = value("fcm-endpoint") { hubs.fcmEndpoint = endpoint }
        hubs.notificationHubsConnectionString = value("anh-connection-string")
        hubs.notificationHubsHub = value("anh-hub")
        hubs.notificationHubsEndpoint = value("anh-endpoint")
        hubs.wnsClientId = value("wns-client-id")
        hubs.wnsClientSecret = value("wns-client-secret")
        if let endpoint = value("wns-token-endpoint") { hubs.wnsTokenEndpoint = endpoint }
        if let scope = value("wns-scope") { hubs.wnsScope = scope }
        if let hosts = value("wns-channel-hosts") {
            do {
                hubs.wnsChannelHosts = try WNSChannelHosts(parsing: hosts)
            } catch {
                throw ConfigurationError(error.description)
            }
        }
        hubs.vapidKeyFile = value("vapid-key-file")
        hubs.vapidSubject = value("vapid-subject")
        if let text = value("allow-private-push-endpoints") {
            guard let on = SettingsResolver.switchState(text) else {
                throw ConfigurationError("allow-private-push-endpoints must be true or false, not '\(text)'")
            }
            hubs.allowPrivatePushEndpoints = on
        }
        hubs.tlsCAFile = value("tls-ca-file")
        switch (value("tls-cert-file"), value("tls-key-file")) {
        case (let certificate?, let key?): tlsFiles = .init(certificateChain: certificate, privateKey: key)
        case (nil, nil): tlsFiles = nil
        case (_?, nil): throw ConfigurationError("tls-cert-file needs tls-key-file, the certificate's private key")
        case (nil, _?): throw ConfigurationError("tls-key-file needs tls-cert-file, the certificate (and its chain) of the key")
        }
        if let concurrency = try integer("hub-concurrency", in: 1...10_000) { hubs.maximumConcurrentRequests = concurrency }
    }
}

/// A setting that cannot be used, named in a sentence.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
