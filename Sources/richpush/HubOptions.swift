import ArgumentParser
import RichPushArguments
import RichPushCore
import RichPushHubs
import RichPushServer

/// The remote hubs of `serve`; each is off unless its settings are given (docs/hubs.md).
struct HubOptions: ParsableArguments {
    @Option(ServeHubSettings.apnsKeyFile) var apnsKeyFile
    @Option(ServeHubSettings.apnsKeyId) var apnsKeyId
    @Option(ServeHubSettings.apnsTeamId) var apnsTeamId
    @Option(ServeHubSettings.apnsTopic) var apnsTopic
    @Option(ServeHubSettings.apnsEndpoint) var apnsEndpoint
    @Option(ServeHubSettings.fcmServiceAccountFile) var fcmServiceAccountFile
    @Option(ServeHubSettings.fcmEndpoint) var fcmEndpoint
    @Option(ServeHubSettings.notificationHubsConnectionString) var notificationHubsConnectionString
    @Option(ServeHubSettings.notificationHubsHub) var notificationHubsHub
    @Option(ServeHubSettings.notificationHubsEndpoint) var notificationHubsEndpoint
    @Option(ServeHubSettings.wnsClientId) var wnsClientId
    @Option(ServeHubSettings.wnsClientSecret) var wnsClientSecret
    @Option(ServeHubSettings.wnsTokenEndpoint) var wnsTokenEndpoint
    @Option(ServeHubSettings.wnsScope) var wnsScope
    @Option(ServeHubSettings.wnsChannelHosts) var wnsChannelHosts
    @Option(ServeHubSettings.vapidKeyFile) var vapidKeyFile
    @Option(ServeHubSettings.vapidSubject) var vapidSubject
    @Flag(ServeHubSettings.allowPrivatePushEndpoints) var allowPrivatePushEndpoints
    @Option(ServeHubSettings.tlsCAFile) var tlsCAFile
    @Option(ServeHubSettings.hubConcurrency) var hubConcurrency
    @Option(ServeHubSettings.hubStreams) var hubStreams
    @Option(ServeHubSettings.hubMaxConnections) var hubMaxConnections
}
