import ArgumentParser

/// The remote hubs of `serve`; each is off unless its settings are given (the README's "Remote hubs").
struct HubOptions: ParsableArguments {
    @Option(name: .customLong("apns-key-file"), help: "APNs token-auth key (.p8, ES256) (env RICHPUSH_APNS_KEY_FILE).")
    var apnsKeyFile: String?
    @Option(name: .customLong("apns-key-id"), help: "The key's id, the JWT's kid (env RICHPUSH_APNS_KEY_ID).")
    var apnsKeyId: String?
    @Option(name: .customLong("apns-team-id"), help: "The Apple team id, the JWT's iss (env RICHPUSH_APNS_TEAM_ID).")
    var apnsTeamId: String?
    @Option(name: .customLong("apns-topic"), help: "The app's bundle id (env RICHPUSH_APNS_TOPIC).")
    var apnsTopic: String?
    @Option(
        name: .customLong("apns-endpoint"),
        help: "Default https://api.push.apple.com; https://api.sandbox.push.apple.com for development (env RICHPUSH_APNS_ENDPOINT).")
    var apnsEndpoint: String?
    @Option(
        name: .customLong("fcm-service-account-file"),
        help: "Firebase service-account JSON key (env RICHPUSH_FCM_SERVICE_ACCOUNT_FILE).")
    var fcmServiceAccountFile: String?
    @Option(name: .customLong("fcm-endpoint"), help: "Default https://fcm.googleapis.com (env RICHPUSH_FCM_ENDPOINT).")
    var fcmEndpoint: String?
    @Option(
        name: .customLong("anh-connection-string"),
        help: "Notification Hubs full-access connection string; it then carries APNs and FCM (env RICHPUSH_ANH_CONNECTION_STRING).")
    var notificationHubsConnectionString: String?
    @Option(name: .customLong("anh-hub"), help: "The notification hub's name (env RICHPUSH_ANH_HUB).")
    var notificationHubsHub: String?
    @Option(name: .customLong("anh-endpoint"), help: "Overrides https://<namespace>.servicebus.windows.net (env RICHPUSH_ANH_ENDPOINT).")
    var notificationHubsEndpoint: String?
    @Option(name: .customLong("wns-client-id"), help: "The app's WNS client id, e.g. ms-app://<package SID> (env RICHPUSH_WNS_CLIENT_ID).")
    var wnsClientId: String?
    @Option(name: .customLong("wns-client-secret"), help: "The app's WNS client secret (env RICHPUSH_WNS_CLIENT_SECRET).")
    var wnsClientSecret: String?
    @Option(
        name: .customLong("wns-token-endpoint"),
        help: "OAuth token endpoint; default https://login.live.com/accesstoken.srf (env RICHPUSH_WNS_TOKEN_ENDPOINT).")
    var wnsTokenEndpoint: String?
    @Option(
        name: .customLong("wns-scope"),
        help: "OAuth scope; default notify.windows.com, https://wns.notify.windows.com/.default for Entra ID apps (env RICHPUSH_WNS_SCOPE).")
    var wnsScope: String?
    @Option(
        name: .customLong("wns-channel-hosts"),
        help: "Hosts a WNS channel URI may name, comma-separated; default *.notify.windows.com (env RICHPUSH_WNS_CHANNEL_HOSTS).")
    var wnsChannelHosts: String?
    @Option(
        name: .customLong("vapid-key-file"),
        help: "PEM P-256 key that signs Web Push's VAPID tokens; with --vapid-subject it turns Web Push on (env RICHPUSH_VAPID_KEY_FILE).")
    var vapidKeyFile: String?
    @Option(name: .customLong("vapid-subject"), help: "The contact VAPID tokens name: mailto:… or https:… (env RICHPUSH_VAPID_SUBJECT).")
    var vapidSubject: String?
    @Flag(
        name: .customLong("allow-private-push-endpoints"),
        help:
            "Accept Web Push endpoints on loopback and private addresses: tests and closed networks only (env RICHPUSH_ALLOW_PRIVATE_PUSH_ENDPOINTS)."
    )
    var allowPrivatePushEndpoints = false
    @Option(name: .customLong("tls-ca-file"), help: "Extra CA bundle trusted for outgoing TLS (env RICHPUSH_TLS_CA_FILE).")
    var tlsCAFile: String?
    @Option(name: .customLong("hub-concurrency"), help: "Requests each hub keeps in flight (default 256; env RICHPUSH_HUB_CONCURRENCY).")
    var concurrency: String?

    var flags: [String: String] {
        [
            "apns-key-file": apnsKeyFile, "apns-key-id": apnsKeyId, "apns-team-id": apnsTeamId, "apns-topic": apnsTopic,
            "apns-endpoint": apnsEndpoint, "fcm-service-account-file": fcmServiceAccountFile, "fcm-endpoint": fcmEndpoint,
            "anh-connection-string": notificationHubsConnectionString, "anh-hub": notificationHubsHub,
            "anh-endpoint": notificationHubsEndpoint, "wns-client-id": wnsClientId, "wns-client-secret": wnsClientSecret,
            "wns-token-endpoint": wnsTokenEndpoint, "wns-scope": wnsScope, "wns-channel-hosts": wnsChannelHosts, "vapid-key-file": vapidKeyFile,
            "vapid-subject": vapidSubject,
            "allow-private-push-endpoints": allowPrivatePushEndpoints ? "true" : nil, "tls-ca-file": tlsCAFile,
            "hub-concurrency": concurrency,
        ].compactMapValues { $0 }
    }
}
