public import RichPushCore

/// The remote hubs' settings of `richpush serve`, each declared once; each hub is off unless its settings are given.
/// `ServeSettings` lists them for `--help`, the table of docs/configuration.md and the configuration, and the hubs name them in the
/// sentences that refuse them.
public enum ServeHubSettings {
    public static let apnsKeyFile = Setting.text("apns-key-file", "APNs token-auth key (.p8, ES256)", defaultText: "APNs off")
    public static let apnsKeyId = Setting.text("apns-key-id", "The APNs key's id, the JWT's kid")
    public static let apnsTeamId = Setting.text("apns-team-id", "The Apple team id, the JWT's iss")
    public static let apnsTopic = Setting.text("apns-topic", "The app's bundle id")
    public static let apnsEndpoint = Setting<String>.text(
        "apns-endpoint", "APNs; https://api.sandbox.push.apple.com for development", default: HubSettings().apnsEndpoint)
    public static let fcmServiceAccountFile = Setting.text(
        "fcm-service-account-file", "Firebase service-account JSON key", defaultText: "FCM off")
    public static let fcmEndpoint = Setting<String>.text("fcm-endpoint", "FCM", default: HubSettings().fcmEndpoint)
    public static let notificationHubsConnectionString = Setting.text(
        "anh-connection-string", "Notification Hubs full-access connection string; it then carries APNs and FCM",
        defaultText: "Notification Hubs off")
    public static let notificationHubsHub = Setting.text("anh-hub", "The notification hub's name")
    public static let notificationHubsEndpoint = Setting.text(
        "anh-endpoint", "Overrides the hub's address", defaultText: "https://<namespace>.servicebus.windows.net", defaultIsLiteral: true)
    public static let wnsClientId = Setting.text("wns-client-id", "The app's WNS client id, such as ms-app://<package SID>", defaultText: "WNS off")
    public static let wnsClientSecret = Setting.text("wns-client-secret", "The app's WNS client secret")
    public static let wnsTokenEndpoint = Setting<String>.text(
        "wns-token-endpoint", "WNS's OAuth token endpoint", default: HubSettings().wnsTokenEndpoint)
    public static let wnsScope = Setting<String>.text(
        "wns-scope", "WNS's OAuth scope; https://wns.notify.windows.com/.default for Entra ID apps", default: HubSettings().wnsScope)
    public static let wnsChannelHosts = Setting<WNSChannelHosts>(
        "wns-channel-hosts", "Hosts a WNS channel URI may name, comma-separated: the bearer token goes to no other",
        default: .standard, defaultText: WNSChannelHosts.standard.description, defaultIsLiteral: true,
        expected: "a comma-separated list of host names such as *.notify.windows.com"
    ) { try? WNSChannelHosts(parsing: $0) }
    public static let vapidKeyFile = Setting.text(
        "vapid-key-file", "PEM P-256 key that signs Web Push's VAPID tokens; with --vapid-subject it turns Web Push on",
        defaultText: "Web Push off")
    public static let vapidSubject = Setting.text("vapid-subject", "The contact VAPID tokens name: mailto:… or https:…")
    public static let allowPrivatePushEndpoints = Setting.switch(
        "allow-private-push-endpoints",
        "Send to Web Push endpoints, WNS channels and webhook receivers on loopback and private addresses: tests and closed networks only",
        defaultText: "off")
    public static let tlsCAFile = Setting.text(
        "tls-ca-file", "Extra CA bundle trusted for the hubs' TLS", defaultText: "the system's CAs")
    public static let hubConcurrency = Setting.integer(
        "hub-concurrency", "Requests Notification Hubs, and WNS and Web Push to a host without HTTP/2, each keep in flight", in: 1...10_000,
        default: HubSettings().maximumConcurrentRequests)
    public static let hubStreams = Setting.integer(
        "hub-streams",
        "Streams APNs, FCM, and each WNS or Web Push host keep in flight on one HTTP/2 connection (fewer if the hub's settings say so)",
        in: 1...10_000, default: HubSettings().maximumStreams)
    public static let hubMaxConnections = Setting.integer(
        "hub-max-connections",
        "HTTP/2 connections APNs, FCM, and each WNS or Web Push host open while requests wait for a stream",
        in: 1...64, default: HubSettings().maximumConnections)

    /// In the order of `--help` and the table of docs/configuration.md.
    public static let all: [any SettingDescription] = [
        apnsKeyFile, apnsKeyId, apnsTeamId, apnsTopic, apnsEndpoint, fcmServiceAccountFile, fcmEndpoint, notificationHubsConnectionString,
        notificationHubsHub, notificationHubsEndpoint, wnsClientId, wnsClientSecret, wnsTokenEndpoint, wnsScope, wnsChannelHosts, vapidKeyFile,
        vapidSubject, allowPrivatePushEndpoints, tlsCAFile, hubConcurrency, hubStreams, hubMaxConnections,
    ]
}
