public import Foundation
public import RichPushCore
import SQLKit

/// The webhooks in the `webhooks` table and their outbox.
public struct SQLWebhookRepository: WebhookRepository {
    let engine: any DatabaseEngine

    /// A webhook keeps this many of its latest attempts: enough to read back a day of retries and a busy hour.
    static let attemptsKept = 1000

    public func create(
        id: String, url: String, events: [WebhookEventType], secret: String, createdBy: String, audit: AuditEntry? = nil, now: Date = .now
    ) async throws -> WebhookRecord {
        try await engine.transaction { db in
            try await db.insert(into: "webhooks").columns("id", "url", "events", "secret", "created_by", "created_at")
                .values(id, url, WebhookEventTypes.encode(events), secret, createdBy, EpochMilliseconds(now)).run()
            try await SQLAuditLog.record(audit, in: db, now: now)
            return WebhookRecord(id: id, url: url, events: events, createdBy: createdBy, createdAt: now)
        }
    }

    public func list() async throws -> [WebhookRecord] {
        try await engine.read { db in
            try await db.select().columns(Self.columns).from("webhooks").orderBy("created_at").orderBy("id").all().map(Self.record)
        }
    }

    public func webhook(id: String) async throws -> WebhookRecord? {
        try await engine.read { db in
            try await db.select().columns(Self.columns).from("webhooks").where("id", .equal, id).first().map(Self.record)
        }
    }

    public func delete(id: String, audit: AuditEntry? = nil, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            guard try await db.delete(from: "webhooks").where("id", .equal, id).returning("id").first() != nil else { return false }
            for table in ["webhook_events", "webhook_messages", "webhook_attempts"] {
                try await db.delete(from: table).where("webhook_id", .equal, id).run()
            }
            try await SQLAuditLog.record(audit, in: db, now: now)
            return true
        }
    }

    public func setEnabled(id: String, _ enabled: Bool, reason: String, audit: AuditEntry? = nil, now: Date = .now) async throws -> WebhookRecord? {
        try await engine.transaction { db in
            if enabled {
                try await db.update("webhooks").set("disabled_at", to: Int64?.none).set("disabled_reason", to: String?.none)
                    .set("failing_since", to: Int64?.none).where("id", .equal, id).run()
            } else {
                try await Self.disable(id, reason: reason, now: now, in: db)
            }
            try await SQLAuditLog.record(audit, in: db, now: now)
            return try await db.select().columns(Self.columns).from("webhooks").where("id", .equal, id).first().map(Self.record)
        }
    }

    public func attempts(webhookId: String, limit: Int) async throws -> [WebhookAttemptRecord] {
        try await engine.read { db in
            try await db.select().columns("id", "message_id", "attempted_at", "event_count", "status", "error", "duration_ms")
                .from("webhook_attempts").where("webhook_id", .equal, webhookId).orderBy("id", .descending).limit(limit).all()
                .map { row in
                    WebhookAttemptRecord(
                        id: try row.int64("id"), messageId: try row.string("message_id"), attemptedAt: try row.date("attempted_at"),
                        eventCount: try row.int("event_count"),
                        result: WebhookAttemptResult(
                            status: try row.decode(column: "status", as: Int?.self), error: try row.optionalString("error"),
                            duration: Double(try row.int("duration_ms")) / 1000))
                }
        }
    }

    /// Disables webhook `id` unless it is already, dropping its message and waiting events.
    static func disable(_ id: String, reason: String, now: Date, in db: any SQLDatabase) async throws {
        try await db.update("webhooks").set("disabled_at", to: EpochMilliseconds(now)).set("disabled_reason", to: reason)
            .where("id", .equal, id).where("disabled_at", .is, SQLLiteral.null).run()
        try await db.delete(from: "webhook_events").where("webhook_id", .equal, id).run()
        try await db.delete(from: "webhook_messages").where("webhook_id", .equal, id).run()
    }

    static let columns = ["id", "url", "events", "created_by", "created_at", "disabled_at", "disabled_reason", "failing_since"]

    static func record(_ row: any SQLRow) throws -> WebhookRecord {
        WebhookRecord(
            id: try row.string("id"), url: try row.string("url"), events: WebhookEventTypes.decode(try row.string("events")),
            createdBy: try row.string("created_by"), createdAt: try row.date("created_at"), disabledAt: try row.optionalDate("disabled_at"),
            disabledReason: try row.optionalString("disabled_reason"), failingSince: try row.optionalDate("failing_since"))
    }
}
