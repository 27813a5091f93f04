public import Foundation
public import Logging
public import RichPushCore
public import RichPushHubs
public import RichPushImaging
import RichPushStore

/// Everything `richpush serve` can be told, resolved from flags, environment, config file and defaults.
public struct ServerConfiguration: Sendable {
    public var hostname = ServeSettings.hostname.defaultValue
    public var port = ServeSettings.port.defaultValue
    /// Where the embedded SQLite store lives.
    public var dataDirectory = ServeSettings.dataDirectory.defaultValue
    /// `postgres://…` selects PostgreSQL; nil means SQLite under ``dataDirectory``.
    public var databaseURL: String?
    /// The web console's static files.
    public var publicDirectory = ServeSettings.publicDirectory.defaultValue
    /// Bundled images; `logo.png` is the tutorial's default payload.
    public var imageDirectory = ServeSettings.imageDirectory.defaultValue
    public var imageLimits = ImageLimits()
    /// Created with role admin on the first start of an empty store when ``adminPassword`` is set.
    public var adminUsername = ServeSettings.adminUser.defaultValue
    public var adminPassword: String?
    public var logLevel = ServeSettings.logLevel.defaultValue
    public var logFormat = ServeSettings.logFormat.defaultValue
    /// The OTLP/HTTP collector traces go to; nil records none.
    public var otelEndpoint: String?
    /// How often an idle stream carries a comment line.
    public var heartbeatInterval = ServeSettings.heartbeatInterval.defaultValue
    /// What stream heartbeats are timed by; tests move theirs forward instead of waiting.
    public var heartbeatClock: any Clock<Duration> = ContinuousClock()
    /// How long a verified credential is trusted before its stored hash is read again.
    public var credentialRevalidation: TimeInterval = 2
    /// Only tests lower it, to keep hundreds of sign-ins fast; everything else hashes at the production cost.
    package var bcryptCost = PasswordHasher.productionCost
    /// How long an idle dispatcher waits before looking for scheduled work.
    public var dispatchIdleInterval: Duration = .seconds(1)
    /// How often, at the longest, what the hubs answered is recorded while batches are out: what a crash sends again.
    public var dispatchRecordWindow: Duration = .milliseconds(250)
    /// How long deliveries claimed by a dispatcher are its own: if its process dies, another process sends them once
    /// this has passed. It must exceed the time one batch takes to reach its hubs.
    public var dispatchLease = ServeSettings.dispatchLease.defaultValue.timeInterval
    /// Deliveries a dispatcher claims in one transaction.
    public var dispatchBatchSize = ServeSettings.dispatchBatchSize.defaultValue
    /// Claimed batches on their way to the hubs at once.
    public var dispatchBatchesInFlight = ServeSettings.dispatchBatchesInFlight.defaultValue
    /// Load balancers whose `X-Forwarded-For` names the client that the login throttle counts by.
    public var trustedProxies = TrustedProxies()
    /// The web origins whose pages may call the API with credentials; none by default.
    public var corsPolicy = CORSPolicy()
    /// The most installations a user registers itself; an admin's import is not limited.
    public var maximumInstallationsPerUser = ServeSettings.maximumInstallationsPerUser.defaultValue
    public var maximumTemplatesPerUser = ServeSettings.maximumTemplatesPerUser.defaultValue
    /// The most open streams of one user on this process; a new one closes the oldest.
    public var maximumStreamsPerUser = ServeSettings.maximumStreamsPerUser.defaultValue
    /// Requests a minute per user or token (a tenth of it per address without valid credentials); 0 is no limit.
    public var rateLimit = ServeSettings.rateLimit.defaultValue
    /// New notifications a minute per sender; 0 is no limit.
    public var sendRateLimit = ServeSettings.sendRateLimit.defaultValue
    /// The most connections one address may hold open before a request on them signs in; trusted proxies are not
    /// limited.
    public var maximumUnauthenticatedConnectionsPerAddress = ServeSettings.maximumUnauthenticatedConnections.defaultValue
    /// How long a request's header may take to arrive whole.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a connection may stay open with no request on it (streams are requests, and stay).
    public var idleTimeout: Duration = .seconds(60)
    /// The gateway's address as devices reach it (`https://push.example.com`): alert pushes that show the image link
    /// to it absolutely. Nil: such alerts carry no image link.
    public var publicURL: String?
    /// The zone of installations without a known one, for deliveries at a local time.
    public var defaultTimeZone = ServeSettings.defaultTimeZone.defaultValue
    /// How long the payload path serves a notification from memory: a recall on another process reaches its fetches
    /// within this time. Not a setting; tests that watch the fast path lengthen it and `credentialRevalidation`, so a
    /// loaded machine cannot let either lapse between two fetches.
    var payloadNotificationTimeToLive: TimeInterval = 1
    /// Tag prefixes only marketers and admins assign, as a user's segments; no device sets such a tag itself.
    public var protectedTagPrefixes = ServeSettings.protectedTagPrefixes.defaultValue
    /// How long hubs keep the push of a notification without `expiresAt` for a device that is offline.
    public var defaultTTL = ServeSettings.defaultTTL.defaultValue.timeInterval
    /// The fetch deadline of silent pushes that name none; nil: no fallback unless a notification asks for one.
    public var fallbackAfter: TimeInterval?
    /// Bytes a second of payloads served at which image campaigns' pushes wait; nil: no limit.
    public var payloadEgressLimit: Int?
    /// Whether admins may send critical alerts.
    public var allowsCriticalAlerts = false
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

    /// Resolves every setting of ``ServeSettings`` from `sources`: a flag wins over the environment (`RICHPUSH_*`),
    /// that over the config file, that over the default.
    public init(_ sources: SettingSources) throws(SettingError) {
        typealias S = ServeSettings
        typealias H = ServeHubSettings
        hostname = try sources.value(S.hostname)
        port = try sources.value(S.port)
        dataDirectory = try sources.value(S.dataDirectory)
        databaseURL = try sources.value(S.databaseURL)
        publicDirectory = try sources.value(S.publicDirectory)
        imageDirectory = try sources.value(S.imageDirectory)
        imageLimits = ImageLimits(maximumBytes: try sources.value(S.maximumImageBytes), maximumPixels: try sources.value(S.maximumImagePixels))
        adminUsername = try sources.value(S.adminUser)
        adminPassword = try sources.value(S.adminPassword)
        logLevel = try sources.value(S.logLevel)
        logFormat = try sources.value(S.logFormat)
        otelEndpoint = try sources.value(S.otelEndpoint)
        heartbeatInterval = try sources.value(S.heartbeatInterval)
        dispatchLease = try sources.value(S.dispatchLease).timeInterval
        dispatchBatchSize = try sources.value(S.dispatchBatchSize)
        dispatchBatchesInFlight = try sources.value(S.dispatchBatchesInFlight)
        publicURL = try sources.value(S.publicURL)
        defaultTimeZone = try sources.value(S.defaultTimeZone)
        protectedTagPrefixes = try sources.value(S.protectedTagPrefixes)
        defaultTTL = try sources.value(S.defaultTTL).timeInterval
        fallbackAfter = try sources.value(S.fallbackAfter)
        payloadEgressLimit = try sources.value(S.payloadEgressLimit)
        allowsCriticalAlerts = try sources.value(S.allowCriticalAlerts)
        frequencyCap = try sources.value(S.frequencyCap)
        quietHours = try sources.value(S.quietHours)
        trustedProxies = try sources.value(S.trustedProxies) ?? TrustedProxies()
        corsPolicy = try sources.value(S.corsOrigins) ?? CORSPolicy()
        maximumInstallationsPerUser = try sources.value(S.maximumInstallationsPerUser)
        maximumTemplatesPerUser = try sources.value(S.maximumTemplatesPerUser)
        maximumStreamsPerUser = try sources.value(S.maximumStreamsPerUser)
        rateLimit = try sources.value(S.rateLimit)
        sendRateLimit = try sources.value(S.sendRateLimit)
        maximumUnauthenticatedConnectionsPerAddress = try sources.value(S.maximumUnauthenticatedConnections)
        hubs.apnsKeyFile = try sources.value(H.apnsKeyFile)
        hubs.apnsKeyId = try sources.value(H.apnsKeyId)
        hubs.apnsTeamId = try sources.value(H.apnsTeamId)
        hubs.apnsTopic = try sources.value(H.apnsTopic)
        hubs.apnsEndpoint = try sources.value(H.apnsEndpoint)
        hubs.fcmServiceAccountFile = try sources.value(H.fcmServiceAccountFile)
        hubs.fcmEndpoint = try sources.value(H.fcmEndpoint)
        hubs.notificationHubsConnectionString = try sources.value(H.notificationHubsConnectionString)
        hubs.notificationHubsHub = try sources.value(H.notificationHubsHub)
        hubs.notificationHubsEndpoint = try sources.value(H.notificationHubsEndpoint)
        hubs.wnsClientId = try sources.value(H.wnsClientId)
        hubs.wnsClientSecret = try sources.value(H.wnsClientSecret)
        hubs.wnsTokenEndpoint = try sources.value(H.wnsTokenEndpoint)
        hubs.wnsScope = try sources.value(H.wnsScope)
        hubs.wnsChannelHosts = try sources.value(H.wnsChannelHosts)
        hubs.vapidKeyFile = try sources.value(H.vapidKeyFile)
        hubs.vapidSubject = try sources.value(H.vapidSubject)
        hubs.allowPrivatePushEndpoints = try sources.value(H.allowPrivatePushEndpoints)
        hubs.tlsCAFile = try sources.value(H.tlsCAFile)
        hubs.maximumConcurrentRequests = try sources.value(H.hubConcurrency)
        hubs.maximumStreams = try sources.value(H.hubStreams)
        hubs.maximumConnections = try sources.value(H.hubMaxConnections)
        switch (try sources.value(S.tlsCertificateFile), try sources.value(S.tlsKeyFile)) {
        case (let certificate?, let key?): tlsFiles = .init(certificateChain: certificate, privateKey: key)
        case (nil, nil): tlsFiles = nil
        case (_?, nil): throw SettingError("--tls-cert-file needs --tls-key-file, the certificate's private key")
        case (nil, _?): throw SettingError("--tls-key-file needs --tls-cert-file, the certificate (and its chain) of the key")
        }
    }
}

/// A configuration the gateway cannot start with (a certificate that is not its key's, a database it cannot reach),
/// in a sentence.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
