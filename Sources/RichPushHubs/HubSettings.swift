import Foundation

/// What `richpush serve` was told about the remote hubs; each is off unless its settings are given.
public struct HubSettings: Sendable, Equatable {
    public var apnsKeyFile: String?
    public var apnsKeyId: String?
    public var apnsTeamId: String?
    public var apnsTopic: String?
    public var apnsEndpoint = "https://api.push.apple.com"
    public var fcmServiceAccountFile: String?
    public var fcmEndpoint = "https://fcm.googleapis.com"
    public var notificationHubsConnectionString: String?
    public var notificationHubsHub: String?
    /// Overrides the `https://<namespace>.servicebus.windows.net` base derived from the connection string.
    public var notificationHubsEndpoint: String?
    public var wnsClientId: String?
    public var wnsClientSecret: String?
    public var wnsTokenEndpoint = "https://login.live.com/accesstoken.srf"
    /// `notify.windows.com` for the classic endpoint; apps registered in Entra ID use
    /// `https://wns.notify.windows.com/.default`.
    public var wnsScope = "notify.windows.com"
    public var wnsChannelHosts = WNSChannelHosts.standard
    /// The PEM P-256 key that signs VAPID tokens, and the contact they name (`mailto:` or `https:`).
    public var vapidKeyFile: String?
    public var vapidSubject: String?
    /// Lets Web Push subscriptions and WNS channels reach loopback and private addresses: for tests and closed
    /// networks only.
    public var allowPrivatePushEndpoints = false
    /// An extra CA bundle trusted for outgoing TLS (private hubs, tests).
    public var tlsCAFile: String?
    /// How many requests Notification Hubs keeps in flight at once, and WNS and Web Push to each host without HTTP/2.
    public var maximumConcurrentRequests = 256
    /// How many streams APNs, FCM and each WNS or Web Push host keep in flight on one HTTP/2 connection, fewer if the
    /// hub's SETTINGS say so. APNs allows up to 1,000: at a round trip of 40 ms a connection of 256 streams carries at most 6,400
    /// pushes a second, one of 1,000 streams 25,000.
    public var maximumStreams = 1000
    /// How many HTTP/2 connections APNs, FCM and each WNS or Web Push host open, each carrying up to ``maximumStreams``.
    public var maximumConnections = 8

    public init() {}
}

/// A hub setting that cannot be used, named in a sentence; `serve` refuses to start with it.
public struct HubConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension HubSettings {
    /// Reads a file a setting names, with an error that says which setting it was.
    static func contents(of path: String, setting: String) throws(HubConfigurationError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HubConfigurationError("\(setting): cannot read \(path)")
        }
        return data
    }

    /// The values of settings that only work together: all of them, or nil when none is given.
    static func group(_ settings: [(name: String, value: String?)]) throws(HubConfigurationError) -> [String]? {
        let given = settings.filter { $0.value?.isEmpty == false }
        if given.isEmpty { return nil }
        guard given.count == settings.count else {
            let missing = settings.filter { $0.value?.isEmpty != false }.map(\.name)
            throw HubConfigurationError("\(given.map(\.name).joined(separator: ", ")) also need \(missing.joined(separator: ", "))")
        }
        return given.map { $0.value! }
    }
}

extension HubSettings {
    /// An endpoint setting as a base URL without a trailing slash; only http and https are accepted.
    static func baseURL(_ text: String, setting: String) throws(HubConfigurationError) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host?.isEmpty == false
        else { throw HubConfigurationError("\(setting): '\(text)' is not an http or https URL") }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
