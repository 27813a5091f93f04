import Foundation

extension HubVerdict {
    static func fcm(_ response: HubResponse) -> HubVerdict {
        guard response.status != 200 else { return .sent }
        return fcm(status: response.status, body: response.jsonObject, retryAfter: response.retryAfter)
    }

    /// What an FCM HTTP v1 answer means, from the `FcmError` code in the error details (or the canonical status when
    /// there is none).
    static func fcm(status: Int, body: [String: Any]?, retryAfter: TimeInterval?) -> HubVerdict {
        let error = body?["error"] as? [String: Any]
        let details = (error?["details"] as? [[String: Any]]) ?? []
        let fcmCode = details.first { ($0["@type"] as? String)?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?["errorCode"] as? String
        let canonical = (error?["status"] as? String) ?? "status \(status)"
        let name = fcmCode ?? canonical
        let text = (error?["message"] as? String) ?? ""
        let code = "fcm." + camelCase(name)
        let message = "FCM answered \(status) \(name)" + (text.isEmpty ? "" : ": \(text)")
        switch (status, name) {
        case (200, _):
            return .sent
        case (_, "UNREGISTERED"), (_, "SENDER_ID_MISMATCH"):
            return .deviceGone(code: code, message: message)
        case (400, "INVALID_ARGUMENT") where text.localizedCaseInsensitiveContains("registration token"):
            return .deviceGone(code: code, message: message)
        case (401, "UNAUTHENTICATED"):
            return .credentialRejected
        case (_, "THIRD_PARTY_AUTH_ERROR"), (401, _), (403, _), (404, _):
            return .configuration(code: code, message: message + " (check the service account and its project)")
        case (429, _):
            // FCM's quota is per minute: without advice, wait for the next one.
            return .retry(after: retryAfter ?? 60, code: code, message: message)
        case (500...599, _):
            return .retry(after: retryAfter ?? 0, code: code, message: message)
        default:
            return .failed(code: code, message: message)
        }
    }

    /// `SENDER_ID_MISMATCH` → `senderIdMismatch`.
    private static func camelCase(_ name: String) -> String {
        let words = name.lowercased().split(separator: "_")
        guard let first = words.first else { return "unknown" }
        return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
