import Crypto
import Foundation
public import Logging
import NIOCore
public import RichPushCore

/// Apple Push Notification service: token auth, one `POST /3/device/<token>` per delivery as a stream of a pool of
/// long-lived HTTP/2 connections, with a bounded number of streams in flight on each.
public struct APNsHub: NotificationHub {
    let topic: String
    let endpoint: String
    let session: HTTP2Session
    let tokens: APNsTokenProvider
    let configuration = ConfigurationHealth(hub: "apns")

    public var name: String { Platform.apns.rawValue }

    /// The hub the settings describe, nil when APNs is not configured.
    public static func configured(by settings: HubSettings) async throws(HubConfigurationError) -> APNsHub? {
        let names = [
            ServeHubSettings.apnsKeyFile.name, ServeHubSettings.apnsKeyId.name, ServeHubSettings.apnsTeamId.name, ServeHubSettings.apnsTopic.name,
        ]
        let values = [settings.apnsKeyFile, settings.apnsKeyId, settings.apnsTeamId, settings.apnsTopic]
        guard let given = try HubSettings.group(Array(zip(names, values))) else { return nil }
        let pem = String(decoding: try HubSettings.contents(of: given[0], setting: ServeHubSettings.apnsKeyFile.name), as: UTF8.self)
        let endpoint = try HubSettings.baseURL(settings.apnsEndpoint, setting: ServeHubSettings.apnsEndpoint.name)
        return APNsHub(
            topic: given[3], endpoint: endpoint,
            session: try HTTP2Session(
                baseURL: endpoint, caFile: settings.tlsCAFile, maximumConcurrentStreams: settings.maximumStreams,
                maximumConnections: settings.maximumConnections),
            tokens: try await APNsTokenProvider(privateKeyPEM: pem, keyId: given[1], teamId: given[2]))
    }

    /// Sends the batch as one round of streams with one provider token, so a push costs a stream and not a task, a
    /// hop onto the connection's event loop and a token lookup of its own.
    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        // The devices of a notification share a few pushes (one per variant, language and badge): encode each once, not
        // per device, and find each job's by its place rather than by hashing its key again.
        var shareOf: [PayloadKey: Int] = [:]
        var payloads: [ByteBuffer] = []
        var share: [Int] = []
        share.reserveCapacity(jobs.count)
        for job in jobs {
            let key = PayloadKey(job)
            if let known = shareOf[key] {
                share.append(known)
            } else {
                shareOf[key] = payloads.count
                share.append(payloads.count)
                payloads.append(ByteBuffer(bytes: job.push.apnsPayload()))
            }
        }
        var outcomes = [DeliveryOutcome?](repeating: nil, count: jobs.count)
        // Indexes, not copies: a job carries a dozen strings whose retains add up over a batch.
        var sendable: [Int] = []
        for (index, job) in jobs.enumerated() {
            let size = payloads[share[index]].readableBytes
            if size > SilentPush.apnsPayloadLimit {
                outcomes[index] = .failed(code: "apns.payloadTooLarge", message: "the push is \(size) bytes, more than the 4096 APNs accepts")
            } else if !Platform.apns.accepts(pushChannel: job.pushChannel) {
                outcomes[index] = .deviceGone(code: "apns.badDeviceToken", message: "the push channel is not a hexadecimal APNs device token")
            } else {
                sendable.append(index)
            }
        }
        let sent = await sendSigned(
            count: sendable.count, logger: logger, progress: { [sendable] position, outcome in progress.answered(sendable[position], outcome) }
        ) { indices, authorization in
            var shared = [NotificationRequests?](repeating: nil, count: payloads.count)
            return indices.map { position in
                let index = sendable[position]
                let job = jobs[index]
                let place = share[index]
                if shared[place] == nil {
                    shared[place] = NotificationRequests(job, payload: payloads[place], authorization: authorization, topic: topic)
                }
                return shared[place]!.request(to: job)
            }
        }
        for (position, outcome) in sent.enumerated() { outcomes[sendable[position]] = outcome }
        return outcomes.map { $0! }
    }

    /// Sends, for each round of a batch of `count` pushes, the requests `build` makes for its positions with the
    /// `authorization` of one provider token (renewed once when APNs calls it expired); answers each push's outcome.
    func sendSigned(
        count: Int, logger: Logger, progress: @escaping @Sendable (Int, DeliveryOutcome) -> Void,
        build: ([Int], _ authorization: String) -> [HTTP2Request]
    ) async -> [DeliveryOutcome] {
        await CredentialedDelivery(hub: name, configuration: configuration, abort: BatchAbort(), logger: logger).runBatch(
            count: count,
            credential: { () async throws(CredentialFailure) -> String in
                do {
                    return try await tokens.token()
                } catch {
                    throw .refused("the provider token could not be signed: \(error)")
                }
            },
            renew: { token in await tokens.expire(token) },
            progress: progress,
            send: { indices, token, answered in
                await session.send(build(indices, "bearer \(token)")) { position, answer in answered(indices[position], answer.map(HubVerdict.apns)) }
                    .map { answer in answer.map(HubVerdict.apns) }
            })
    }

    /// Closes the connection to APNs.
    public func shutdown() async {
        await session.shutdown()
    }

    /// The same UUID for every attempt of one notification to one installation, so a resend after a crash carries
    /// the `apns-id` of the first try.
    public static func apnsId(notificationId: Int64, installationId: String) -> String {
        apnsId(of: installationId, after: apnsIdHash(notificationId: notificationId))
    }

    /// The hash of every apns-id of one notification, before the installation's id is added.
    static func apnsIdHash(notificationId: Int64) -> SHA256 {
        var hash = SHA256()
        hash.update(data: Array("richpush-apns-id:\(notificationId):".utf8))
        return hash
    }

    static func apnsId(of installationId: String, after notificationHash: SHA256) -> String {
        var hash = notificationHash
        var installationId = installationId
        installationId.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return hash.finalize().withUnsafeBytes { digest in
            // Written out by hand, in UUID's lower-case text form: formatting through UUID costs a printf per push.
            let digits: StaticString = "0123456789abcdef"
            return String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    // RFC 9562 version 8 (custom) with the RFC 4122 variant: a well-formed UUID whose bits are ours.
                    let byte =
                        switch index {
                        case 6: digest[6] & 0x0F | 0x80
                        case 8: digest[8] & 0x3F | 0x80
                        default: digest[index]
                        }
                    text[position] = digits.utf8Start[Int(byte >> 4)]
                    text[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }
}

/// Which pushes of a batch have the same bytes: those of one notification's variant in one language with one badge.
struct PayloadKey: Hashable {
    var notificationId: Int64
    var variant: String?
    var language: String?
    var badge: Int?
    var event: PushEvent

    init(_ job: DeliveryJob) {
        notificationId = job.notificationId
        variant = job.variant
        language = job.language
        badge = job.push.badge
        event = job.push.event
    }
}

/// What the pushes of one notification in a batch with one payload share: their headers but the apns-id, their body,
/// and the start of their apns-id's hash.
struct NotificationRequests {
    let headers: [HTTP2Header]
    let payload: ByteBuffer
    let idHash: SHA256

    init(_ job: DeliveryJob, payload: ByteBuffer, authorization: String, topic: String) {
        let (pushType, priority) = job.pushStyle == .silent ? ("background", "5") : ("alert", "10")
        var headers = [
            HTTP2Header("authorization", authorization), HTTP2Header("apns-topic", topic), HTTP2Header("apns-push-type", pushType),
            HTTP2Header("apns-priority", priority), HTTP2Header("apns-collapse-id", Self.collapseId(of: job)),
            HTTP2Header("content-type", "application/json"), HTTP2Header("content-length", String(payload.readableBytes)),
        ]
        if let expiresAt = job.expiresAt {
            headers.append(HTTP2Header("apns-expiration", String(Int64(expiresAt.timeIntervalSince1970.rounded(.up)))))
        }
        self.headers = headers
        self.payload = payload
        self.idHash = APNsHub.apnsIdHash(notificationId: job.notificationId)
    }

    /// One collapse id per notification, and another for its state pushes, so a newer state replaces an older one
    /// waiting for an offline device without replacing the notification itself.
    static func collapseId(of job: DeliveryJob) -> String {
        job.push.event == .rich ? "richpush-\(job.notificationId)" : "state-\(job.notificationId)"
    }

    /// The push to `job`'s device.
    func request(to job: DeliveryJob) -> HTTP2Request {
        // Unique to this push: not worth a place in the connection's compression table.
        let id = HTTP2Header("apns-id", APNsHub.apnsId(of: job.installationId, after: idHash), indexable: false)
        return HTTP2Request(path: "/3/device/\(job.pushChannel)", headers: headers, ownHeader: id, body: payload)
    }
}
