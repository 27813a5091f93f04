import HubTestServers
import RichPushHubs

extension HubSettings {
    /// Points APNs at the loopback `apns`, reached at `endpoint`: its own unless given (a relay in front of it).
    mutating func useLoopbackAPNs(_ apns: APNsTestServer, endpoint: String? = nil) {
        apnsKeyFile = apns.keyFile
        apnsKeyId = APNsTestServer.keyId
        apnsTeamId = APNsTestServer.teamId
        apnsTopic = APNsTestServer.topic
        apnsEndpoint = endpoint ?? apns.endpoint
        tlsCAFile = apns.authority.caFile
    }
}
