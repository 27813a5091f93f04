public import Foundation
public import RichPushCore
import SQLKit

extension SQLWebhookRepository {
    public func claimDueMessages(maximumEvents: Int, lease: TimeInterval, now: Date = .now) async throws -> [WebhookMessage] {
        let nowMs = EpochMilliseconds(now)
        // Most looks find nothing: they stay reads, and take no write lock from the dispatcher.
        let idle = try await engine.read { db in
            let waiting = try await db.select().column("id").from("webhook_events").where("message_id", .is, SQLLiteral.null).limit(1).first()
            let due = try await db.select().column("id").from("webhook_messages").where("due_at", .lessThanOrEqual, nowMs).limit(1).first()
            return waiting == nil && due == nil
        }
        guard !idle else { return [] }
        return try await engine.transaction(.deferred) { db in
            try await Self.gatherWaitingEvents(maximumEvents: maximumEvents, nowMs: nowMs, in: db)
            let claimed = try await db.update("webhook_messages").set("claimed_until", to: EpochMilliseconds(now + lease))
                .where("due_at", .lessThanOrEqual, nowMs)
                .where { $0.where("claimed_until", .is, SQLLiteral.null).orWhere("claimed_until", .lessThanOrEqual, nowMs) }
                .returning("id", "webhook_id", "created_at", "attempts").all()
            var messages: [WebhookMessage] = []
            for row in claimed {
                let id = try row.string("id")
                let webhookId = try row.string("webhook_id")
                guard
                    let webhook = try await db.select().columns("url", "secret").from("webhooks").where("id", .equal, webhookId)
                        .where("disabled_at", .is, SQLLiteral.null).first()
                else { continue }
                let events = try await db.select().columns("type", "data", "occurred_at").from("webhook_events")
                    .where("message_id", .equal, id).orderBy("id").all()
                    .map {
                        WebhookEvent(
                            type: try $0.enumeration("type", as: WebhookEventType.self), occurredAt: try $0.date("occurred_at"),
                            data: try $0.string("data"))
                    }
                messages.append(
                    WebhookMessage(
                        id: id, webhookId: webhookId, url: try webhook.string("url"), secret: try webhook.string("secret"),
                        createdAt: try row.date("created_at"), attempts: try row.int("attempts"), events: events))
            }
            return messages
        }
    }

    /// Makes a message of the oldest waiting events of each enabled webhook that has none on its way.
    private static func gatherWaitingEvents(maximumEvents: Int, nowMs: Int64, in db: any SQLDatabase) async throws {
        let waiting = try await db.raw(
            """
            SELECT DISTINCT e.webhook_id FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id
            WHERE e.message_id IS NULL AND w.disabled_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM webhook_messages m WHERE m.webhook_id = e.webhook_id)
            """
        ).all()
        for row in waiting {
            let webhookId = try row.string("webhook_id")
            let messageId = "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            // Another process may have made this webhook's message since the read above: the unique index keeps one.
            guard
                try await db.insert(into: "webhook_messages").columns("id", "webhook_id", "created_at", "attempts", "due_at")
                    .values(messageId, webhookId, nowMs, 0, nowMs).ignoringConflicts(with: "webhook_id").returning("id").first() != nil
            else { continue }
            try await db.raw(
                """
                UPDATE webhook_events SET message_id = \(bind: messageId) WHERE id IN (SELECT id FROM webhook_events
                    WHERE webhook_id = \(bind: webhookId) AND message_id IS NULL ORDER BY id LIMIT \(literal: maximumEvents))
                """
            ).run()
        }
    }

    public func record(_ result: WebhookAttemptResult, of message: WebhookMessage, then next: WebhookFollowUp, now: Date = .now) async throws {
        let nowMs = EpochMilliseconds(now)
        try await engine.transaction(.deferred) { db in
            // Deleted while its message was on its way: nothing of it is kept.
            guard try await db.select().column("id").from("webhooks").where("id", .equal, message.webhookId).first() != nil else { return }
            try await db.insert(into: "webhook_attempts")
                .columns("webhook_id", "message_id", "attempted_at", "event_count", "status", "error", "duration_ms")
                .values(
                    message.webhookId, message.id, nowMs, message.events.count, result.status, result.error.map { String($0.prefix(500)) },
                    Int(result.duration * 1000)
                ).run()
            try await db.raw(
                """
                DELETE FROM webhook_attempts WHERE webhook_id = \(bind: message.webhookId) AND id <= (SELECT id FROM webhook_attempts
                    WHERE webhook_id = \(bind: message.webhookId) ORDER BY id DESC LIMIT 1 OFFSET \(literal: Self.attemptsKept))
                """
            ).run()
            switch next {
            case .delivered:
                try await db.delete(from: "webhook_events").where("message_id", .equal, message.id).run()
                try await db.delete(from: "webhook_messages").where("id", .equal, message.id).run()
                try await db.update("webhooks").set("failing_since", to: Int64?.none).where("id", .equal, message.webhookId).run()
            case .retry(let at):
                try await db.update("webhook_messages").set("attempts", to: message.attempts + 1).set("due_at", to: EpochMilliseconds(at))
                    .set("claimed_until", to: Int64?.none).where("id", .equal, message.id).run()
                try await db.update("webhooks").set("failing_since", to: nowMs).where("id", .equal, message.webhookId)
                    .where("failing_since", .is, SQLLiteral.null).run()
            case .disable(let reason):
                try await Self.disable(message.webhookId, reason: reason, now: now, in: db)
            }
        }
    }
}
