import Crypto
import Foundation
public import Logging
import NIOCore
public import RichPushCore

/// Live Activity pushes: `apns-push-type: liveactivity` to the topic `<bundle id>.push-type.liveactivity`, each to
/// the push-to-start token (a start) or the activity's update token (an update or an end), as Apple documents them.
extension APNsHub {
    /// Sends each job's push with one provider token and answers its outcome, in the order of `jobs`.
    public func deliverLiveActivities(_ jobs: [ActivityJob], logger: Logger) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome?](repeating: nil, count: jobs.count)
        var sendable: [Int] = []
        var bodies: [Int: ByteBuffer] = [:]
        for (index, job) in jobs.enumerated() {
            let body = ByteBuffer(bytes: job.activity.apnsPayload(for: job.event))
            if body.readableBytes > SilentPush.apnsPayloadLimit {
                outcomes[index] = .failed(
                    code: "apns.payloadTooLarge", message: "the push is \(body.readableBytes) bytes, more than the 4096 APNs accepts")
            } else if !Platform.apns.accepts(pushChannel: job.token) {
                outcomes[index] = .failed(code: "apns.badDeviceToken", message: "the activity token is not a hexadecimal APNs token")
            } else {
                bodies[index] = body
                sendable.append(index)
            }
        }
        let topic = self.topic + ".push-type.liveactivity"
        let sent = await sendSigned(count: sendable.count, logger: logger, progress: { _, _ in }) { indices, authorization in
            indices.map { position in
                let index = sendable[position]
                return Self.liveActivityRequest(jobs[index], body: bodies[index]!, authorization: authorization, topic: topic)
            }
        }
        for (position, outcome) in sent.enumerated() { outcomes[sendable[position]] = outcome }
        return outcomes.map { $0! }
    }

    /// Priority 10 for a start, an end and an update that raises an alert; 5 for a quiet update, which iOS does not
    /// count against the activity's budget of frequent updates. The apns-id is the same for every attempt of one
    /// state to one device.
    static func liveActivityRequest(_ job: ActivityJob, body: ByteBuffer, authorization: String, topic: String) -> HTTP2Request {
        let priority = job.event == .update && job.activity.alert == nil ? "5" : "10"
        let headers = [
            HTTP2Header("authorization", authorization), HTTP2Header("apns-topic", topic), HTTP2Header("apns-push-type", "liveactivity"),
            HTTP2Header("apns-priority", priority), HTTP2Header("content-type", "application/json"),
            HTTP2Header("content-length", String(body.readableBytes)),
        ]
        var hash = SHA256()
        hash.update(data: Array("richpush-activity:\(job.activity.id):\(job.activity.version):".utf8))
        let id = HTTP2Header("apns-id", apnsId(of: job.installationId, after: hash), indexable: false)
        return HTTP2Request(path: "/3/device/\(job.token)", headers: headers, ownHeader: id, body: body)
    }
}
