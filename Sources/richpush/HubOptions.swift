import ArgumentParser
import RichPushArguments
import RichPushCore
import RichPushServer

/// The remote hubs of `serve`; each is off unless its settings are given (the README's "Remote hubs").
struct HubOptions: ParsableArguments {
    @Option(name: .setting(ServeSettings.apnsKeyFile), help: .setting(ServeSettings.apnsKeyFile)) var apnsKeyFile: String?
    @Option(name: .setting(ServeSettings.apnsKeyId), help: .setting(ServeSettings.apnsKeyId)) var apnsKeyId: String?
    @Option(name: .setting(ServeSettings.apnsTeamId), help: .setting(ServeSettings.apnsTeamId)) var apnsTeamId: String?
    @Option(name: .setting(ServeSettings.apnsTopic), help: .setting(ServeSettings.apnsTopic)) var apnsTopic: String?
    @Option(name: .setting(ServeSettings.apnsEndpoint), help: .setting(ServeSettings.apnsEndpoint)) var apnsEndpoint: String?
    @Option(name: .setting(ServeSettings.fcmServiceAccountFile), help: .setting(ServeSettings.fcmServiceAccountFile)) var fcmServiceAccountFile:
        String?
    @Option(name: .setting(ServeSettings.fcmEndpoint), help: .setting(ServeSettings.fcmEndpoint)) var fcmEndpoint: String?
    @Option(name: .setting(ServeSettings.notificationHubsConnectionString), help: .setting(ServeSettings.notificationHubsConnectionString))
    var notificationHubsConnectionString: String?
    @Option(name: .setting(ServeSettings.notificationHubsHub), help: .setting(ServeSettings.notificationHubsHub)) var notificationHubsHub: String?
    @Option(name: .setting(ServeSettings.notificationHubsEndpoint), help: .setting(ServeSettings.notificationHubsEndpoint))
    var notificationHubsEndpoint: String?
    @Option(name: .setting(ServeSettings.wnsClientId), help: .setting(ServeSettings.wnsClientId)) var wnsClientId: String?
    @Option(name: .setting(ServeSettings.wnsClientSecret), help: .setting(ServeSettings.wnsClientSecret)) var wnsClientSecret: String?
    @Option(name: .setting(ServeSettings.wnsTokenEndpoint), help: .setting(ServeSettings.wnsTokenEndpoint)) var wnsTokenEndpoint: String?
    @Option(name: .setting(ServeSettings.wnsScope), help: .setting(ServeSettings.wnsScope)) var wnsScope: String?
    @Option(name: .setting(ServeSettings.wnsChannelHosts), help: .setting(ServeSettings.wnsChannelHosts)) var wnsChannelHosts: String?
    @Option(name: .setting(ServeSettings.vapidKeyFile), help: .setting(ServeSettings.vapidKeyFile)) var vapidKeyFile: String?
    @Option(name: .setting(ServeSettings.vapidSubject), help: .setting(ServeSettings.vapidSubject)) var vapidSubject: String?
    @Flag(name: .setting(ServeSettings.allowPrivatePushEndpoints), help: .setting(ServeSettings.allowPrivatePushEndpoints))
    var allowPrivatePushEndpoints = false
    @Option(name: .setting(ServeSettings.tlsCAFile), help: .setting(ServeSettings.tlsCAFile)) var tlsCAFile: String?
    @Option(name: .setting(ServeSettings.hubConcurrency), help: .setting(ServeSettings.hubConcurrency)) var hubConcurrency: String?

    var given: GivenFlags {
        var flags = GivenFlags()
        flags.add(ServeSettings.apnsKeyFile, apnsKeyFile)
        flags.add(ServeSettings.apnsKeyId, apnsKeyId)
        flags.add(ServeSettings.apnsTeamId, apnsTeamId)
        flags.add(ServeSettings.apnsTopic, apnsTopic)
        flags.add(ServeSettings.apnsEndpoint, apnsEndpoint)
        flags.add(ServeSettings.fcmServiceAccountFile, fcmServiceAccountFile)
        flags.add(ServeSettings.fcmEndpoint, fcmEndpoint)
        flags.add(ServeSettings.notificationHubsConnectionString, notificationHubsConnectionString)
        flags.add(ServeSettings.notificationHubsHub, notificationHubsHub)
        flags.add(ServeSettings.notificationHubsEndpoint, notificationHubsEndpoint)
        flags.add(ServeSettings.wnsClientId, wnsClientId)
        flags.add(ServeSettings.wnsClientSecret, wnsClientSecret)
        flags.add(ServeSettings.wnsTokenEndpoint, wnsTokenEndpoint)
        flags.add(ServeSettings.wnsScope, wnsScope)
        flags.add(ServeSettings.wnsChannelHosts, wnsChannelHosts)
        flags.add(ServeSettings.vapidKeyFile, vapidKeyFile)
        flags.add(ServeSettings.vapidSubject, vapidSubject)
        flags.add(ServeSettings.allowPrivatePushEndpoints, allowPrivatePushEndpoints)
        flags.add(ServeSettings.tlsCAFile, tlsCAFile)
        flags.add(ServeSettings.hubConcurrency, hubConcurrency)
        return flags
    }
}
