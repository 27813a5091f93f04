public import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
public import RichPushCore

/// Windows Push Notification Services: one raw notification per delivery, `POST`ed to the device's channel URI with
/// an OAuth access token got by the app's client credentials, reused until it expires and renewed once on a 401.
/// The token endpoint is the operator's; a channel's host is the device's, reached through `channels`.
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

    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        let abort = BatchAbort()
        return await jobs.concurrentMap(maximum: maximumConcurrentRequests, finished: progress.answered) { job in
            await self.deliver(job, abort: abort, logger: logger)
        }
    }

    private func deliver(_ job: DeliveryJob, abort: BatchAbort, logger: Logger) async -> DeliveryOutcome {
        // Checked at registration too; a channel registered before the setting changed must not get the token either.
        guard hosts.accepts(job.pushChannel) else {
            return .failed(code: "wns.channelNotAllowed", message: "the channel is not an https URL on \(hosts.description)")
        }
        let body = Self.body(for: job)
        guard body.count <= Self.maximumBodyBytes else {
            return .failed(code: "wns.payloadTooLarge", message: "the raw notification is \(body.count) bytes; WNS takes 5120")
        }
        let client: HTTPClient
        switch await channels.connection(to: job.pushChannel, hub: name) {
        case .ready(let ready): client = ready
        case .refused(let outcome): return outcome
        }
        return await CredentialedDelivery(hub: name, configuration: configuration, abort: abort, logger: logger).run(
            credential: { () async throws(CredentialFailure) -> String in try await tokens.token() },
            renew: { token in await tokens.expire(token) },
            send: { token in
                var request = HTTPClientRequest(url: job.pushChannel)
                request.method = .POST
                request.headers.add(name: "authorization", value: "Bearer \(token)")
                request.headers.add(name: "x-wns-type", value: "wns/raw")
                request.headers.add(name: "content-type", value: "application/octet-stream")
                if let ttl = Self.timeToLive(of: job) { request.headers.add(name: "x-wns-ttl", value: String(ttl)) }
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await client.hubExecute(request)
                return .wns(
                    status: response.status, errorDescription: response.headers.first(name: "x-wns-error-description"),
                    retryAfter: response.retryAfter)
            })
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
