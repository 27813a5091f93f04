import Foundation
import RichPushCore
import RichPushStore

/// When a webhook message that did not arrive is sent again, and when the gateway stops trying.
///
/// The delays are Standard Webhooks' (Svix's) schedule, cut to a day: attempts at 0 s, 5 s, 5 min, 30 min, 2 h, 5 h
/// and 10 h after each other, seven within the day a message is kept. A receiver that failed all of them is taken to
/// be gone, and the webhook is disabled with the reason shown, rather than retried forever; so is one that answers
/// `410 Gone`, or whose address the outbound rules refuse.
struct WebhookRetryPolicy: Sendable {
    var delays: [TimeInterval] = [5, 300, 1800, 7200, 18_000, 36_000]
    /// How long a message is tried.
    var lifetime: TimeInterval = 86_400

    func followUp(after result: WebhookAttemptResult, refused: Bool, of message: WebhookMessage, now: Date) -> WebhookFollowUp {
        if result.succeeded { return .delivered }
        if refused { return .disable(reason: "The gateway does not send to this address: \(result.describedFailure)") }
        if result.status == 410 { return .disable(reason: "The receiver answered 410 Gone, which asks for no more events.") }
        let next = now + delays[min(message.attempts, delays.count - 1)]
        guard next <= message.createdAt + lifetime else {
            return .disable(
                reason:
                    "Every attempt to send message \(message.id) failed for a day (\(message.attempts + 1) attempts); the last: \(result.describedFailure)"
            )
        }
        return .retry(at: next)
    }
}

extension WebhookAttemptResult {
    /// The failure in a few words: the receiver's status, or why there was none.
    var describedFailure: String {
        if let status { return "HTTP \(status)" }
        return error ?? "no answer"
    }
}
