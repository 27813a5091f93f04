public import Foundation
public import RichPushCore

/// Webhooks, the events waiting for them, and what each attempt to send them got.
public protocol WebhookRepository: Sendable {
    func create(
        id: String, url: String, events: [WebhookEventType], secret: String, createdBy: String, audit: AuditEntry?, now: Date
    ) async throws -> WebhookRecord
    /// Every webhook, oldest first.
    func list() async throws -> [WebhookRecord]
    func webhook(id: String) async throws -> WebhookRecord?
    /// Removes a webhook with its waiting events and its attempts; false when there is none.
    func delete(id: String, audit: AuditEntry?, now: Date) async throws -> Bool
    /// Enables a disabled webhook again (its failures forgotten), or disables one by hand; nil when there is none.
    func setEnabled(id: String, _ enabled: Bool, reason: String, audit: AuditEntry?, now: Date) async throws -> WebhookRecord?
    /// The latest `limit` attempts of a webhook, newest first.
    func attempts(webhookId: String, limit: Int) async throws -> [WebhookAttemptRecord]
    /// Gathers the waiting events of each enabled webhook that has no message on its way into one of at most
    /// `maximumEvents`, oldest first, and claims for `lease` every message that is due: each webhook has at most one
    /// message at a time, so its events reach it in order and a failing receiver holds back one request, not a flood.
    func claimDueMessages(maximumEvents: Int, lease: TimeInterval, now: Date) async throws -> [WebhookMessage]
    /// Records an attempt and what follows from it.
    func record(_ result: WebhookAttemptResult, of message: WebhookMessage, then next: WebhookFollowUp, now: Date) async throws
}

/// What becomes of a message after an attempt.
public enum WebhookFollowUp: Sendable, Equatable {
    /// It arrived: its events are done with.
    case delivered
    /// It is sent again at that time.
    case retry(at: Date)
    /// It is dropped, and the webhook disabled for the reason given; its waiting events are dropped too.
    case disable(reason: String)
}
