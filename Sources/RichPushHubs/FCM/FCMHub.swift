public import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
public import RichPushCore

/// Firebase Cloud Messaging HTTP v1: one data-only message per delivery, authorized by the service account's
/// OAuth access token.
public struct FCMHub: NotificationHub {
    let sendURL: String
    let client: HTTPClient
    let tokens: OAuthAccessTokens
    let configuration = ConfigurationHealth(hub: "fcm")
    let maximumConcurrentRequests: Int

    public var name: String { Platform.fcm.rawValue }

    /// The hub the settings describe, nil when FCM is not configured.
    public static func configured(by settings: HubSettings, client: HTTPClient) async throws(HubConfigurationError) -> FCMHub? {
        guard let path = settings.fcmServiceAccountFile, !path.isEmpty else { return nil }
        let account = try ServiceAccount.load(path: path)
        let endpoint = try HubSettings.baseURL(settings.fcmEndpoint, setting: ServeHubSettings.fcmEndpoint.name)
        return FCMHub(
            sendURL: "\(endpoint)/v1/projects/\(account.projectId)/messages:send", client: client,
            tokens: try await FCMAccessTokens.make(account: account, client: client),
            maximumConcurrentRequests: settings.maximumConcurrentRequests)
    }

    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        let abort = BatchAbort()
        return await jobs.concurrentMap(maximum: maximumConcurrentRequests, finished: progress.answered) { job in
            await self.deliver(job, abort: abort, logger: logger)
        }
    }

    private func deliver(_ job: DeliveryJob, abort: BatchAbort, logger: Logger) async -> DeliveryOutcome {
        let body = Self.message(for: job, token: job.pushChannel)
        return await CredentialedDelivery(hub: name, configuration: configuration, abort: abort, logger: logger).run(
            credential: { () async throws(CredentialFailure) -> String in try await tokens.token() },
            renew: { token in await tokens.expire(token) },
            send: { token in
                var request = HTTPClientRequest(url: sendURL)
                request.method = .POST
                request.headers.add(name: "authorization", value: "Bearer \(token)")
                request.headers.add(name: "content-type", value: "application/json; charset=utf-8")
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await client.hubExecute(request)
                return .fcm(status: response.status, body: response.jsonObject, retryAfter: response.retryAfter)
            })
    }

    /// The message of `job`. A silent push is data-only (no `notification` key), so the app's handler runs even in
    /// the background; an alert is a `notification` message (title, body, and the image's signed link) with the same
    /// data, its category the Android click action and its thread the Android tag. Without a `token` it is the body
    /// of Notification Hubs' `fcmv1` format, whose hub fills in each device.
    static func message(for job: DeliveryJob, token: String?, now: Date = .now) -> Data {
        let push = job.push
        var android: [String: Any] = ["priority": "HIGH"]
        if let expiresAt = job.expiresAt {
            android["ttl"] = "\(max(0, Int(expiresAt.timeIntervalSince(now).rounded(.up))))s"
        }
        var message: [String: Any] = ["data": push.keys]
        if push.style == .alert {
            var notification: [String: Any] = ["body": push.richMessage]
            if let title = push.richTitle { notification["title"] = title }
            if let image = job.imageLink { notification["image"] = image }
            message["notification"] = notification
            var androidNotification: [String: Any] = ["click_action": push.category]
            if let threadId = push.threadId { androidNotification["tag"] = threadId }
            if let sound = push.sound { androidNotification["sound"] = sound }
            android["notification"] = androidNotification
        }
        message["android"] = android
        if let token { message["token"] = token }
        return try! JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
