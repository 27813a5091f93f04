import ArgumentParser
import RichPushArguments
import RichPushCore
import RichPushServer

/// The remote hubs of `serve`; each is off unless its settings are given (the README's "Remote hubs").
struct HubOptions: ParsableArguments {
    @Option(ServeSettings.apnsKeyFile) var apnsKeyFile
    @Option(ServeSettings.apnsKeyId) var apnsKeyId
    @Option(ServeSettings.apnsTeamId) var apnsTeamId
    @Option(ServeSettings.apnsTopic) var apnsTopic
    @Option(ServeSettings.apnsEndpoint) var apnsEndpoint
    @Option(ServeSettings.fcmServiceAccountFile) var fcmServiceAccountFile
    @Option(ServeSettings.fcmEndpoint) var fcmEndpoint
    @Option(ServeSettings.notificationHubsConnectionString) var notificationHubsConnectionString
    @Option(ServeSettings.notificationHubsHub) var notificationHubsHub
    @Option(ServeSettings.notificationHubsEndpoint) var notificationHubsEndpoint
    @Option(ServeSettings.wnsClientId) var wnsClientId
    @Option(ServeSettings.wnsClientSecret) var wnsClientSecret
    @Option(ServeSettings.wnsTokenEndpoint) var wnsTokenEndpoint
    @Option(ServeSettings.wnsScope) var wnsScope
    @Option(ServeSettings.wnsChannelHosts) var wnsChannelHosts
    @Option(ServeSettings.vapidKeyFile) var vapidKeyFile
    @Option(ServeSettings.vapidSubject) var vapidSubject
    @Flag(ServeSettings.allowPrivatePushEndpoints) var allowPrivatePushEndpoints
    @Option(ServeSettings.tlsCAFile) var tlsCAFile
    @Option(ServeSettings.hubConcurrency) var hubConcurrency
}
