import Foundation
public import Logging
import NIOCore
import NIOHTTP1
public import RichPushCore

/// Web Push (RFC 8030) to browsers and UnifiedPush distributors: each delivery is the stream's `rich` event,
/// encrypted for the subscription (RFC 8291) and `POST`ed to its endpoint with a VAPID authorization (RFC 8292); the
/// pushes to one push service go together as streams of its HTTP/2 connections.
public struct WebPushHub: NotificationHub {
    /// Each push service's host judged, and connected to at the address judged.
    let endpoints: PinnedHTTPClients
    let signer: VAPIDSigner
    let maximumConcurrentRequests: Int

    public var name: String { Platform.webpush.rawValue }

    /// The application server key browsers subscribe with (`applicationServerKey`), base64url.
    public var publicKey: String { signer.publicKey }

    /// The hub the settings describe, nil when Web Push is not configured.
    public static func configured(by settings: HubSettings, endpoints: PinnedHTTPClients) async throws(HubConfigurationError) -> WebPushHub? {
        guard
            let values = try HubSettings.group([
                (ServeHubSettings.vapidKeyFile.name, settings.vapidKeyFile), (ServeHubSettings.vapidSubject.name, settings.vapidSubject),
            ])
        else { return nil }
        let pem = String(decoding: try HubSettings.contents(of: values[0], setting: ServeHubSettings.vapidKeyFile.name), as: UTF8.self)
        return WebPushHub(
            endpoints: endpoints, signer: try await VAPIDSigner(privateKeyPEM: pem, subject: values[1]),
            maximumConcurrentRequests: settings.maximumConcurrentRequests)
    }

    /// Each push service on its own: a user's UnifiedPush server that is down must not hold back the browsers'.
    public func circuit(of job: DeliveryJob) -> String? {
        guard let host = WebPushSubscription.endpointHost(of: job.pushChannel) else { return name }
        return "\(name):\(host)"
    }

    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        let plaintexts = jobs.shared(by: PayloadKey.init) { Data(Self.plaintext(of: $0).utf8) }
        let batch = await EndpointBatch(jobs, progress: progress) { index, job in await push(for: job, plaintext: plaintexts[index]) }
        let positions = batch.positions
        let sent = await endpoints.send(batch.pushes, hub: name, maximumConcurrentRequests: maximumConcurrentRequests) { index, answer in
            progress.answered(positions[index], Self.outcome(of: answer, logger: logger))
        }
        return batch.outcomes(sent: sent.map { Self.outcome(of: $0, logger: logger) })
    }

    /// The push of `job`, `plaintext` encrypted for its subscription, or why it cannot go.
    private func push(for job: DeliveryJob, plaintext: Data) async -> PreparedPush {
        let subscription: WebPushSubscription
        do {
            subscription = try WebPushSubscription(channel: job.pushChannel, policy: endpoints.policy)
        } catch {
            return .settled(.deviceGone(code: "webpush.invalidSubscription", message: error.reason))
        }
        let body: Data
        do {
            body = try WebPushEncryption.encrypt(plaintext, for: subscription.recipient)
        } catch {
            return .settled(.failed(code: "webpush.payloadTooLarge", message: "the push is over the 4079 bytes one record holds"))
        }
        let authorization: String
        do {
            authorization = try await signer.authorization(for: subscription.endpoint)
        } catch {
            return .settled(.failed(code: "webpush.vapid", message: "the VAPID token could not be signed: \(error)"))
        }
        let headers = [
            HTTP2Header("authorization", authorization), HTTP2Header("content-encoding", "aes128gcm"),
            HTTP2Header("content-type", "application/octet-stream"), HTTP2Header("ttl", String(Self.timeToLive(of: job))),
            HTTP2Header("urgency", Self.urgency(of: job)), HTTP2Header("topic", Self.topic(of: job)),
        ]
        return .ready(EndpointPush(url: subscription.endpoint, headers: headers, body: ByteBuffer(bytes: body)))
    }

    /// What came of a push.
    static func outcome(of answer: EndpointAnswer, logger: Logger) -> DeliveryOutcome {
        switch answer {
        case .answered(let response):
            return outcome(status: response.status, retryAfter: response.retryAfter, body: response.body)
        case .refused(let outcome):
            return outcome
        case .unreachable(let error):
            logger.debug("push service unreachable", metadata: ["richpush.hub": "webpush", "error": "\(error)"])
            return .retry(after: 0, code: "webpush.unreachable", message: "the push service could not be reached: \(error)")
        }
    }

    /// What a push service's answer means.
    static func outcome(status: Int, retryAfter: TimeInterval?, body: ByteBuffer) -> DeliveryOutcome {
        let text = String(buffer: body).prefix(200)
        let message = "the push service answered \(status)" + (text.isEmpty ? "" : ": \(text)")
        switch status {
        case 200...299: return .sent
        case 404, 410: return .deviceGone(code: "webpush.subscriptionGone", message: message)
        case 413: return .failed(code: "webpush.payloadTooLarge", message: message)
        case 429, 500...599: return .retry(after: retryAfter ?? 0, code: "webpush.unavailable", message: message)
        default: return .failed(code: "webpush.status\(status)", message: message)
        }
    }

    /// The stream's `rich` event of the push, which a service worker reads as `event.data.json()`; a state push's keys
    /// (`richEvent`, `richId` and the states) as one JSON object.
    static func plaintext(of job: DeliveryJob) -> String {
        let push = job.push
        guard push.event == .rich else {
            return String(decoding: try! JSONSerialization.data(withJSONObject: push.keys, options: [.sortedKeys]), as: UTF8.self)
        }
        return StreamEvent(cursor: 0, body: .announcing(push)).data
    }

    /// RFC 8030's `Urgency`: `low` for a passive push, which a browser on battery may hold back, `high` for an alert or
    /// a time-sensitive or critical push, `normal` otherwise.
    static func urgency(of job: DeliveryJob) -> String {
        switch job.push.interruptionLevel {
        case .passive: "low"
        case .timeSensitive, .critical: "high"
        case .active, nil: job.pushStyle == .alert ? "high" : "normal"
        }
    }

    /// Whole seconds until the push expires; the contract's four weeks for a push without an expiry.
    static func timeToLive(of job: DeliveryJob, now: Date = .now) -> Int {
        job.expiresAt.map { max(0, Int($0.timeIntervalSince(now).rounded(.up))) } ?? 2_419_200
    }

    /// One topic per notification, so a push service holding an undelivered push replaces it rather than queue two.
    static func topic(of job: DeliveryJob) -> String {
        "rich-\(job.notificationId)"
    }
}
