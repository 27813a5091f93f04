import Crypto
import Foundation
public import Logging
import NIOCore
import NIOHPACK
public import RichPushCore

/// Apple Push Notification service: token auth, one `POST /3/device/<token>` per delivery as a stream of one
/// long-lived HTTP/2 connection, with a bounded number of streams in flight.
public struct APNsHub: NotificationHub {
    let topic: String
    let endpoint: String
    let session: HTTP2Session
    let tokens: APNsTokenProvider
    let failures = ConfigurationFailure(hub: "apns")

    public var name: String { Platform.apns.rawValue }

    /// The hub the settings describe, nil when APNs is not configured.
    public static func configured(by settings: HubSettings) async throws(HubConfigurationError) -> APNsHub? {
        let names = ["apns-key-file", "apns-key-id", "apns-team-id", "apns-topic"]
        let values = [settings.apnsKeyFile, settings.apnsKeyId, settings.apnsTeamId, settings.apnsTopic]
        guard let given = try HubSettings.group(Array(zip(names, values))) else { return nil }
        let pem = String(decoding: try HubSettings.contents(of: given[0], setting: "apns-key-file"), as: UTF8.self)
        let endpoint = try HubSettings.baseURL(settings.apnsEndpoint, setting: "apns-endpoint")
        return APNsHub(
            topic: given[3], endpoint: endpoint,
            session: try HTTP2Session(
                baseURL: endpoint, caFile: settings.tlsCAFile, maximumConcurrentStreams: settings.maximumConcurrentRequests),
            tokens: try await APNsTokenProvider(privateKeyPEM: pem, keyId: given[1], teamId: given[2]))
    }

    /// Sends the batch as one round of streams with one provider token, so a push costs a stream and not a task, a
    /// hop onto the connection's event loop and a token lookup of its own.
    public func deliver(_ jobs: [DeliveryJob], logger: Logger) async -> [DeliveryOutcome] {
        // Every device of a notification gets the same bytes: encode them once per notification, not per device.
        var payloads: [Int64: ByteBuffer] = [:]
        for job in jobs where payloads[job.notificationId] == nil {
            payloads[job.notificationId] = ByteBuffer(bytes: job.push.apnsPayload())
        }
        var outcomes = [DeliveryOutcome?](repeating: nil, count: jobs.count)
        // Indexes, not copies: a job carries a dozen strings whose retains add up over a batch.
        var sendable: [Int] = []
        for (index, job) in jobs.enumerated() {
            let size = payloads[job.notificationId]!.readableBytes
            if size > SilentPush.apnsPayloadLimit {
                outcomes[index] = .failed(code: "apns.payloadTooLarge", message: "the push is \(size) bytes, more than the 4096 APNs accepts")
            } else if !Platform.apns.accepts(pushChannel: job.pushChannel) {
                outcomes[index] = .deviceGone(code: "apns.badDeviceToken", message: "the push channel is not a hexadecimal APNs device token")
            } else {
                sendable.append(index)
            }
        }
        let sent = await CredentialedDelivery(hub: name, failures: failures, abort: BatchAbort(), logger: logger).runBatch(
            count: sendable.count,
            credential: { () async throws(CredentialFailure) -> String in
                do {
                    return try await tokens.token()
                } catch {
                    throw .refused("the provider token could not be signed: \(error)")
                }
            },
            renew: { token in await tokens.expire(token) },
            send: { indices, token in
                let authorization = "bearer \(token)"
                let requests = indices.map { position in
                    let job = jobs[sendable[position]]
                    return request(for: job, payload: payloads[job.notificationId]!, authorization: authorization)
                }
                return await session.send(requests).map { answer in
                    answer.map { .apns(status: $0.status, reason: $0.jsonObject?["reason"] as? String, retryAfter: $0.retryAfter) }
                }
            })
        for (position, outcome) in sent.enumerated() { outcomes[sendable[position]] = outcome }
        return outcomes.map { $0! }
    }

    func request(for job: DeliveryJob, payload: ByteBuffer, authorization: String) -> HTTP2Request {
        let (pushType, priority) = job.pushStyle == .silent ? ("background", "5") : ("alert", "10")
        var headers = HPACKHeaders([
            ("authorization", authorization), ("apns-topic", topic), ("apns-push-type", pushType), ("apns-priority", priority),
            ("apns-collapse-id", "richpush-\(job.notificationId)"), ("content-type", "application/json"),
            ("content-length", String(payload.readableBytes)),
        ])
        // Unique to this push: not worth a place in the connection's compression table.
        headers.add(
            name: "apns-id", value: Self.apnsId(notificationId: job.notificationId, installationId: job.installationId), indexing: .nonIndexable)
        if let expiresAt = job.expiresAt {
            headers.add(name: "apns-expiration", value: String(Int64(expiresAt.timeIntervalSince1970.rounded(.up))))
        }
        return HTTP2Request(path: "/3/device/\(job.pushChannel)", headers: headers, body: payload)
    }

    /// Closes the connection to APNs.
    public func shutdown() async {
        await session.shutdown()
    }

    /// The same UUID for every attempt of one notification to one installation, so a resend after a crash carries
    /// the `apns-id` of the first try.
    public static func apnsId(notificationId: Int64, installationId: String) -> String {
        var bytes = Array(SHA256.hash(data: Array("richpush-apns-id:\(notificationId):\(installationId)".utf8)).prefix(16))
        // RFC 9562 version 8 (custom) with the RFC 4122 variant: a well-formed UUID whose bits are ours.
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        // Written out by hand, in UUID's lower-case text form: formatting through UUID costs a printf per push.
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                text[position] = digits.utf8Start[Int(byte >> 4)]
                text[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }
}
