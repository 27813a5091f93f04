public import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
public import RichPushCore

/// Windows Push Notification Services: one raw notification per delivery, `POST`ed to the device's channel URI with
/// an OAuth access token got by the app's client credentials, reused until it expires and renewed once on a 401.
/// The token endpoint is the operator's; a channel's host is the device's, reached through `channels`, whose pushes to
/// one host go together as streams of its HTTP/2 connections.
public struct WNSHub: NotificationHub {
    let client: HTTPClient
    let channels: PinnedHTTPClients
    let tokens: OAuthAccessTokens
    let hosts: WNSChannelHosts
    let configuration = ConfigurationHealth(hub: "wns")
    let maximumConcurrentRequests: Int

    public var name: String { Platform.wns.rawValue }

    /// WNS refuses a raw notification over 5 KB.
    static let maximumBodyBytes = 5120

    /// The hub the settings describe, nil when WNS is not configured.
    public static func configured(by settings: HubSettings, client: HTTPClient, channels: PinnedHTTPClients) throws(HubConfigurationError)
        -> WNSHub?
    {
        guard
            let values = try HubSettings.group([
                (ServeHubSettings.wnsClientId.name, settings.wnsClientId), (ServeHubSettings.wnsClientSecret.name, settings.wnsClientSecret),
            ])
        else { return nil }
        let (clientId, secret, scope) = (values[0], values[1], settings.wnsScope)
        let endpoint = try HubSettings.baseURL(settings.wnsTokenEndpoint, setting: ServeHubSettings.wnsTokenEndpoint.name)
        let tokens = OAuthAccessTokens(endpoint: endpoint, client: client, credentialName: "the client credentials") { _ in
            OAuthAccessTokens.form(["grant_type": "client_credentials", "client_id": clientId, "client_secret": secret, "scope": scope])
        }
        return WNSHub(
            client: client, channels: channels, tokens: tokens, hosts: settings.wnsChannelHosts,
            maximumConcurrentRequests: settings.maximumConcurrentRequests)
    }

    /// Each of WNS's regional hosts on its own: a channel names the host that serves its device.
    public func circuit(of job: DeliveryJob) -> String? {
        guard let host = URL(string: job.pushChannel)?.host else { return name }
        return "\(name):\(host)"
    }

    /// Sends the batch with one access token, the pushes to each channel host together.
    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        let bodies = jobs.shared(by: PayloadKey.init) { Self.body(for: $0) }
        let batch = await EndpointBatch(jobs, progress: progress) { index, job in push(for: job, body: bodies[index]) }
        let (pushes, positions) = (batch.pushes, batch.positions)
        let sent = await CredentialedDelivery(hub: name, configuration: configuration, abort: BatchAbort(), logger: logger).runBatch(
            count: pushes.count,
            credential: { () async throws(CredentialFailure) -> String in try await tokens.token() },
            renew: { token in await tokens.expire(token) },
            progress: { index, outcome in progress.answered(positions[index], outcome) },
            send: { indices, token, answered in
                let authorized = indices.map { index in
                    var push = pushes[index]
                    push.headers.insert(HTTP2Header("authorization", "Bearer \(token)"), at: 0)
                    return push
                }
                return await channels.send(authorized, hub: name, maximumConcurrentRequests: maximumConcurrentRequests) { position, answer in
                    answered(indices[position], HubVerdict.wns(answer))
                }
                .map(HubVerdict.wns)
            })
        return batch.outcomes(sent: sent)
    }

    /// The push of `job` with `body` and without its authorization, or why it cannot go.
    private func push(for job: DeliveryJob, body: Data) -> PreparedPush {
        // Checked at registration too; a channel registered before the setting changed must not get the token either.
        guard let url = URL(string: job.pushChannel), hosts.accepts(url) else {
            return .settled(.failed(code: "wns.channelNotAllowed", message: "the channel is not an https URL on \(hosts.description)"))
        }
        guard body.count <= Self.maximumBodyBytes else {
            return .settled(.failed(code: "wns.payloadTooLarge", message: "the raw notification is \(body.count) bytes; WNS takes 5120"))
        }
        var headers = [HTTP2Header("x-wns-type", "wns/raw"), HTTP2Header("content-type", "application/octet-stream")]
        if let ttl = Self.timeToLive(of: job) { headers.append(HTTP2Header("x-wns-ttl", String(ttl))) }
        return .ready(EndpointPush(url: url, headers: headers, body: ByteBuffer(bytes: body)))
    }

    /// The raw notification: the push's keys as one JSON object, which the app's background task reads.
    static func body(for job: DeliveryJob) -> Data {
        try! JSONSerialization.data(withJSONObject: job.push.keys, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Whole seconds until the push expires, at least 1; nil for a push without an expiry.
    static func timeToLive(of job: DeliveryJob, now: Date = .now) -> Int? {
        job.expiresAt.map { max(1, Int($0.timeIntervalSince(now).rounded(.up))) }
    }
}
