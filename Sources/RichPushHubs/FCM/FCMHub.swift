public import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
public import RichPushCore

/// Firebase Cloud Messaging HTTP v1: one data-only message per delivery, authorized by the service account's
/// OAuth access token, each a stream of a pool of long-lived HTTP/2 connections (``HTTP2Session``, as APNs).
///
/// Not async-http-client, which the token exchange still uses: it keeps one HTTP/2 connection per origin, so at a
/// real round trip FCM's 100 streams a connection capped the fan-out at 100 pushes a round trip (2,500 a second at
/// 40 ms); the session opens connections up to `--hub-max-connections` while every stream is taken.
public struct FCMHub: NotificationHub {
    let sendPath: String
    let session: HTTP2Session
    let tokens: OAuthAccessTokens
    let configuration = ConfigurationHealth(hub: "fcm")

    public var name: String { Platform.fcm.rawValue }

    /// The hub the settings describe, nil when FCM is not configured; `client` exchanges the service account's
    /// assertions for access tokens.
    public static func configured(by settings: HubSettings, client: HTTPClient) async throws(HubConfigurationError) -> FCMHub? {
        guard let path = settings.fcmServiceAccountFile, !path.isEmpty else { return nil }
        let account = try ServiceAccount.load(path: path)
        let endpoint = try HubSettings.baseURL(settings.fcmEndpoint, setting: ServeHubSettings.fcmEndpoint.name)
        let session = try HTTP2Session(
            baseURL: endpoint, caFile: settings.tlsCAFile, maximumConcurrentStreams: settings.maximumStreams,
            maximumConnections: settings.maximumConnections)
        do {
            return FCMHub(
                sendPath: "/v1/projects/\(account.projectId)/messages:send", session: session,
                tokens: try await FCMAccessTokens.make(account: account, client: client))
        } catch {
            await session.shutdown()
            throw error
        }
    }

    /// Sends the batch as one round of streams with one access token.
    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        let bodies = Self.messages(for: jobs)
        return await CredentialedDelivery(hub: name, configuration: configuration, abort: BatchAbort(), logger: logger).runBatch(
            count: jobs.count,
            credential: { () async throws(CredentialFailure) -> String in try await tokens.token() },
            renew: { token in await tokens.expire(token) },
            progress: progress.answered,
            send: { indices, token, answered in
                let headers = [HTTP2Header("authorization", "Bearer \(token)"), HTTP2Header("content-type", "application/json; charset=utf-8")]
                let requests = indices.map { index in
                    HTTP2Request(
                        path: sendPath, headers: headers,
                        ownHeader: HTTP2Header("content-length", String(bodies[index].readableBytes), indexable: false),
                        body: bodies[index])
                }
                return await session.send(requests) { position, answer in answered(indices[position], answer.map(HubVerdict.fcm)) }
                    .map { answer in answer.map(HubVerdict.fcm) }
            })
    }

    /// Closes the connections to FCM.
    public func shutdown() async {
        await session.shutdown()
    }

    /// The message of each job, as ``message(for:token:now:)`` writes it: encoded once for the jobs that share a push
    /// (one per notification, variant, language and badge), each device's token written in after. Encoding a message
    /// per device through JSONSerialization cost the gateway more CPU than the rest of the push.
    static func messages(for jobs: [DeliveryJob], now: Date = .now) -> [ByteBuffer] {
        // An alert's image link is each device's own, so it is part of what a shared message shares.
        let messages = jobs.shared(by: { FCMPayloadKey(payload: PayloadKey($0), imageLink: $0.imageLink) }) { job in
            message(for: job, token: nil, now: now)
        }
        return zip(jobs, messages).map { job, message in
            // `{"message":{…}}` without its two closing braces, then the token, which sorts after every other key.
            var body = ByteBuffer()
            body.reserveCapacity(message.count + job.pushChannel.utf8.count + 12)
            body.writeBytes(message.dropLast(2))
            body.writeString(#","token":"#)
            body.writeJSONString(job.pushChannel)
            body.writeString("}}")
            return body
        }
    }

    /// The message of `job`. A silent push is data-only (no `notification` key), so the app's handler runs even in
    /// the background; an alert is a `notification` message (title, body, and the image's signed link) with the same
    /// data, its category the Android click action, its thread the Android tag and its channel Android's channel. A
    /// passive push goes at Android's normal priority, any other at high. Without a `token` it is the body
    /// of Notification Hubs' `fcmv1` format, whose hub fills in each device.
    static func message(for job: DeliveryJob, token: String?, now: Date = .now) -> Data {
        let push = job.push
        var android: [String: Any] = ["priority": push.interruptionLevel?.androidPriority ?? "HIGH"]
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
            if let channel = push.channel { androidNotification["channel_id"] = channel }
            android["notification"] = androidNotification
        }
        message["android"] = android
        if let token { message["token"] = token }
        return try! JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes])
    }
}

extension ByteBuffer {
    /// `text` as a JSON string (RFC 8259): quotation marks, backslashes and control characters escaped, every other
    /// character as it is.
    mutating func writeJSONString(_ text: String) {
        writeInteger(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): writeStaticString("\\\"")
            case UInt8(ascii: "\\"): writeStaticString("\\\\")
            case 0x0A: writeStaticString("\\n")
            case 0x0D: writeStaticString("\\r")
            case 0x09: writeStaticString("\\t")
            case 0x08: writeStaticString("\\b")
            case 0x0C: writeStaticString("\\f")
            case 0..<0x20:
                let digits: StaticString = "0123456789abcdef"
                writeStaticString("\\u00")
                writeInteger(digits.utf8Start[Int(byte >> 4)])
                writeInteger(digits.utf8Start[Int(byte & 0x0F)])
            default: writeInteger(byte)
            }
        }
        writeInteger(UInt8(ascii: "\""))
    }
}

/// What the FCM messages of one notification share: an APNs push's key, and the alert's image link.
struct FCMPayloadKey: Hashable {
    var payload: PayloadKey
    var imageLink: String?
}
