public import Foundation
public import RichPushCore
import SQLKit

/// The notifications in the `notifications` table, their outboxes in `deliveries` and their feed entries in `feed_entries`.
public struct SQLNotificationRepository: NotificationRepository {
    let engine: any DatabaseEngine
    /// Whether a campaign's first attempts go into its sequence, to be claimed by ranges (``OutboxClaims/writesSequences``).
    let writesSequences: Bool
    /// Platforms whose hub sends a notification once to its whole audience: their deliveries are written outside the sequences.
    let audiencePlatforms: Set<Platform>

    public func create(
        _ draft: NotificationDraft, audit: @escaping @Sendable (Int64) -> AuditEntry? = { _ in nil }, now: Date = .now
    ) async throws -> (notification: NotificationRecord, created: Bool) {
        let inSequence = writesSequences
        let audiencePlatforms = self.audiencePlatforms
        return try await engine.transaction { db in
            if let key = draft.idempotencyKey,
                let existing = try await db.select().columns(Self.notificationColumns).from("notifications")
                    .where("created_by", .equal, draft.createdBy).where("idempotency_key", .equal, key).first()
            {
                return (try Self.notificationRecord(existing), false)
            }
            let (imageId, url, text) = Self.columns(of: draft.payload)
            let dues = try await Self.dueTimes(of: draft, now: now, in: db)
            let due = dues.first
            let released = due <= now
            let inserted = try await db.insert(into: "notifications")
                .columns(
                    "message", "rich_type", "image_id", "url", "text_body", "audience", "push_style", "created_by",
                    "idempotency_key", "created_at", "deliver_at", "expires_at", "released_at", "content", "template_name",
                    "template_version", "deliver_at_local", "due_times", "purpose", "variants", "fallback_after", "delivery_rate"
                )
                .values(
                    draft.message, draft.payload.richType.rawValue, imageId, url, text, draft.audience.description,
                    draft.pushStyle.rawValue, draft.createdBy, draft.idempotencyKey, EpochMilliseconds(now),
                    EpochMilliseconds(due), draft.expiresAt.map(EpochMilliseconds), released ? EpochMilliseconds(now) : nil,
                    Self.contentJSON(draft.content), draft.template?.name, draft.template.map { Int64($0.version) },
                    draft.localDelivery?.time.description, dues.byZone == nil ? nil : dues.json, draft.purpose.rawValue,
                    try Self.variantsJSON(draft.variants), draft.fallbackAfter.map { Int64(($0 * 1000).rounded()) },
                    draft.deliveryRate.map(Int64.init)
                )
                .ignoringConflicts(with: ["created_by", "idempotency_key"])
                .returning("id").first()
            guard let id = try inserted?.int64("id") else {
                // The same key from the same sender, committed by a concurrent request (another process) meanwhile.
                let first = try await db.select().columns(Self.notificationColumns).from("notifications")
                    .where("created_by", .equal, draft.createdBy).where("idempotency_key", .equal, draft.idempotencyKey).first()!
                return (try Self.notificationRecord(first), false)
            }
            try await SQLAuditLog.record(audit(id), in: db, now: now)

            let addressed: Bool
            if dues.byZone == nil {
                // The first chunk only: the rest is written after, while the dispatcher sends this one.
                let end = try await SQLAudience.chunkEnd(of: draft.audience, after: nil, size: SQLOutbox.firstOutboxChunk, in: db)
                addressed =
                    try await SQLAudience.insertDeliveries(
                        notificationId: id, audience: draft.audience, due: dues.sql, through: end, inSequence: inSequence, except: audiencePlatforms,
                        in: db) > 0
                if let end {
                    try await db.update("notifications").set("outbox_through", to: end).set("outbox_claimed_at", to: EpochMilliseconds(now))
                        .where("id", .equal, id).run()
                }
            } else {
                // Deliveries at a local time fall due over hours: nothing is gained by sending the first sooner.
                addressed =
                    try await SQLAudience.insertDeliveries(
                        notificationId: id, audience: draft.audience, due: dues.sql, inSequence: false, in: db) > 0
            }
            try await SQLAudience.insertFeedEntries(notificationId: id, audience: draft.audience, now: now, in: db)
            try await Self.assignVariants(draft.variants, notificationId: id, in: db)
            if released {
                try await Self.assignFeedSequence(notificationId: id, in: db)
                if addressed { try await engine.announce([.deliveriesDue], in: db) }
            }
            let row = try await db.select().columns(Self.notificationColumns).from("notifications").where("id", .equal, id)
                .first()!
            return (try Self.notificationRecord(row), true)
        }
    }

    public func notification(id: Int64) async throws -> NotificationRecord? {
        try await engine.read { db in
            try await db.select().columns(Self.notificationColumns).from("notifications").where("id", .equal, id).first()
                .map(Self.notificationRecord)
        }
    }

    public func list(limit: Int, before: Int64?) async throws -> [NotificationRecord] {
        try await engine.read { db in
            var query = db.select().columns(Self.notificationColumns).from("notifications")
            if let before { query = query.where("id", .lessThan, before) }
            return try await query.orderBy("id", .descending).limit(limit).all().map(Self.notificationRecord)
        }
    }

    public func releaseDue(now: Date = .now) async throws -> [Int64] {
        try await engine.transaction { db in try await Self.releaseDue(now: now, in: db) }
    }

    public func remove(
        id: Int64, audit: @escaping @Sendable (RemovalOutcome) -> AuditEntry? = { _ in nil }, now: Date = .now
    ) async throws -> (outcome: RemovalOutcome, notifiedUsers: [String])? {
        try await engine.transaction { db in
            guard
                let row = try await db.select().columns(Self.notificationColumns + ["released_at"]).from("notifications")
                    .where("id", .equal, id).first()
            else { return nil }
            let record = try Self.notificationRecord(row)
            if record.canceledAt != nil || record.deletedAt != nil { return (.alreadyRemoved, []) }
            let sent = try await SQLOutbox.tally(of: id, in: db).sent
            let outcome: RemovalOutcome = sent == 0 ? .canceled : .deleted
            // Another process's cancel, committed since the row was read, leaves nothing to remove here.
            let removed = try await db.update("notifications").set(outcome == .canceled ? "canceled_at" : "deleted_at", to: EpochMilliseconds(now))
                .where("id", .equal, id).where("canceled_at", .is, SQLLiteral.null).where("deleted_at", .is, SQLLiteral.null)
                .returning("id").first()
            guard removed != nil else { return (.alreadyRemoved, []) }
            try await SQLAuditLog.record(audit(outcome), in: db, now: now)
            try await SQLOutbox.finishPending(
                db.update("deliveries").set("finished_at", to: EpochMilliseconds(now)).where("notification_id", .equal, id), as: .canceled,
                in: db)
            try await SQLFallbackQueue.skipPending(of: id, reason: "notification.recalled", now: now, in: db)
            var notified: [String] = []
            if try row.optionalDate("released_at") != nil {
                notified = try await db.select().column("username").from("feed_entries").where("notification_id", .equal, id)
                    .orderBy("username").all().map { try $0.string("username") }
                let event = StreamEvent(cursor: 0, body: .deleted(richId: id))
                try await SQLEventLog.appendEvents(event, usernames: notified, installationId: nil, now: now, engine: engine, in: db)
                try await SQLStatePushQueue.enqueueStatePushes(
                    .deleted, notificationId: id, recipients: .feed(ofNotification: id), except: nil, now: now, in: db)
            }
            return (outcome, notified)
        }
    }

    public func isRecipient(notificationId: Int64, username: String) async throws -> Bool {
        try await engine.read { db in
            try await db.select().column("username").from("feed_entries").where("notification_id", .equal, notificationId)
                .where("username", .equal, username).first() != nil
        }
    }
}
