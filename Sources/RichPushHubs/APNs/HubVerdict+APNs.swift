import Foundation

extension HubVerdict {
    /// What an APNs answer means. Nearly every answer is a 200 without a body: it is told apart before anything of it
    /// is read.
    static func apns(_ response: HubResponse) -> HubVerdict {
        guard response.status != 200 else { return .sent }
        return apns(status: response.status, reason: response.jsonObject?["reason"] as? String, retryAfter: response.retryAfter)
    }

    /// What an APNs answer means, from Apple's documented status codes and `reason` values.
    static func apns(status: Int, reason: String?, retryAfter: TimeInterval?) -> HubVerdict {
        let reason = reason ?? "status \(status)"
        let code = "apns." + reason.prefix(1).lowercased() + reason.dropFirst()
        let message = "APNs answered \(status) \(reason)"
        switch (status, reason) {
        case (200, _):
            return .sent
        case (403, "ExpiredProviderToken"):
            return .credentialRejected
        case (410, _), (400, "BadDeviceToken"):
            return .deviceGone(code: code, message: "\(message): the device token is no longer valid")
        case (403, _), (400, "BadTopic"), (400, "MissingTopic"), (400, "TopicDisallowed"), (404, _), (405, _):
            return .configuration(code: code, message: "\(message): check the APNs key, key id, team id, topic and endpoint")
        case (429, _), (500...599, _):
            return .retry(after: retryAfter ?? 0, code: code, message: message)
        default:
            return .failed(code: code, message: message)
        }
    }
}
