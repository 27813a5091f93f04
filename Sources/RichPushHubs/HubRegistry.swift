import AsyncHTTPClient
public import Logging
import NIOPosix
public import RichPushCore

/// The hub of every platform, as the settings configure them.
///
/// The direct hub is always on. APNs and FCM go through Notification Hubs when it is configured, else through their
/// own adapters when those are, else they fail with `hub.notConfigured`. WNS and Web Push have their own adapters
/// either way.
public struct HubRegistry: Sendable {
    public let hubs: [Platform: any NotificationHub]
    /// Keeps Notification Hubs' registrations in step, when it carries APNs and FCM.
    public let mirror: (any InstallationMirror)?
    /// Platforms whose deliveries of one notification go out in one send, so they must be claimed together.
    public let audiencePlatforms: Set<Platform>
    /// The VAPID public key browsers subscribe with, when Web Push is configured.
    public let webPushPublicKey: String?
    private let client: HTTPClient?
    /// The clients of the hosts devices name: Web Push endpoints, WNS channels.
    private let endpoints: PinnedHTTPClients?
    /// The HTTP/2 connections of hubs that keep their own (APNs).
    private let sessions: [HTTP2Session]

    public static func configured(by settings: HubSettings, direct: DirectHub, logger: Logger) async throws(HubConfigurationError) -> HubRegistry {
        var hubs: [Platform: any NotificationHub] = [.direct: direct]
        let usesRemoteHub =
            settings.apnsKeyFile != nil || settings.fcmServiceAccountFile != nil || settings.notificationHubsConnectionString != nil
            || settings.wnsClientId != nil || settings.wnsClientSecret != nil || settings.vapidKeyFile != nil || settings.vapidSubject != nil
        guard usesRemoteHub else {
            return HubRegistry(
                hubs: hubs, mirror: nil, audiencePlatforms: [], webPushPublicKey: nil, client: nil, endpoints: nil, sessions: [])
        }
        let configuration = try HTTPClient.hubClientConfiguration(caFile: settings.tlsCAFile)
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let endpoints = try PinnedHTTPClients(
            caFile: settings.tlsCAFile, policy: OutboundAddressPolicy(allowsPrivateAddresses: settings.allowPrivatePushEndpoints),
            maximumStreams: settings.maximumStreams, maximumConnections: settings.maximumConnections)
        var sessions: [HTTP2Session] = []
        var webPushPublicKey: String?
        do {
            if let wns = try WNSHub.configured(by: settings, client: client, channels: endpoints) {
                hubs[.wns] = wns
                logger.notice("hub configured", metadata: ["richpush.hub": "wns"])
            }
            if let webPush = try await WebPushHub.configured(by: settings, endpoints: endpoints) {
                hubs[.webpush] = webPush
                webPushPublicKey = webPush.publicKey
                logger.notice("hub configured", metadata: ["richpush.hub": "webpush"])
            }
            if let notificationHubs = try NotificationHubsHub.configured(by: settings, client: client) {
                if settings.apnsKeyFile != nil || settings.fcmServiceAccountFile != nil {
                    logger.warning("Notification Hubs carries APNs and FCM; the direct APNs and FCM settings are ignored")
                }
                for platform in NotificationHubsHub.platforms { hubs[platform] = notificationHubs }
                logger.notice("hub configured", metadata: ["richpush.hub": "anh"])
                return HubRegistry(
                    hubs: hubs, mirror: notificationHubs.mirror, audiencePlatforms: NotificationHubsHub.platforms,
                    webPushPublicKey: webPushPublicKey, client: client, endpoints: endpoints, sessions: [])
            }
            if let apns = try await APNsHub.configured(by: settings) {
                hubs[.apns] = apns
                sessions.append(apns.session)
                logger.notice("hub configured", metadata: ["richpush.hub": "apns", "richpush.endpoint": "\(apns.endpoint)"])
            }
            if let fcm = try await FCMHub.configured(by: settings, client: client) {
                hubs[.fcm] = fcm
                sessions.append(fcm.session)
                logger.notice("hub configured", metadata: ["richpush.hub": "fcm"])
            }
        } catch {
            for session in sessions { await session.shutdown() }
            try? await client.shutdown()
            try? await endpoints.shutdown()
            throw error
        }
        return HubRegistry(
            hubs: hubs, mirror: nil, audiencePlatforms: [], webPushPublicKey: webPushPublicKey, client: client, endpoints: endpoints,
            sessions: sessions)
    }

    /// Closes the connections to the remote hubs.
    public func shutdown() async throws {
        for session in sessions { await session.shutdown() }
        try await endpoints?.shutdown()
        try await client?.shutdown()
    }
}
