public import Foundation
public import RichPushCore
import SQLKit

/// The life of one delivery row of the outbox.
enum DeliveryState: String {
    case pending
    case sent
    case failed
    case expired
    case canceled
    /// Not sent: its user had reached the frequency cap.
    case capped

    /// `state = 'pending'`, the state written as a literal: the planners match it to the index of pending deliveries,
    /// which a bound value they cannot.
    static let isPending = SQLBinaryExpression(SQLIdentifier("state"), .equal, SQLLiteral.string(pending.rawValue))
    /// `state IN ('failed', 'expired')`, the deliveries that the index of failures holds, written as literals for the
    /// same reason.
    static let isFailure = SQLBinaryExpression(
        SQLIdentifier("state"), .in, SQLGroupExpression([SQLLiteral.string(failed.rawValue), SQLLiteral.string(expired.rawValue)]))
}

extension Store {
    static let notificationColumns = [
        "id", "message", "rich_type", "image_id", "url", "text_body", "audience", "push_style", "created_by", "created_at",
        "deliver_at", "expires_at", "canceled_at", "deleted_at", "content", "template_name", "template_version", "deliver_at_local",
        "due_times", "purpose", "variants", "outbox_through",
    ]
    /// Rows per multi-row INSERT: well under every engine's limit on bound parameters.
    static let insertChunk = 500

    /// Stores a notification, a feed entry per recipient and its outbox (a delivery per addressed installation) in one
    /// transaction, all of the outbox or, when it is larger than its first chunk, that chunk; ``completeOutbox(of:)``
    /// writes the rest. With an `idempotencyKey` already used by the same sender, returns the first notification with
    /// `created` false and writes nothing. `audit` makes the trail's entry of the new notification's id.
    public func createNotification(
        _ draft: NotificationDraft, audit: @escaping @Sendable (Int64) -> AuditEntry? = { _ in nil }, now: Date = .now
    ) async throws -> (notification: NotificationRecord, created: Bool) {
        let inSequence = sequences != nil
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
                    "template_version", "deliver_at_local", "due_times", "purpose", "variants"
                )
                .values(
                    draft.message, draft.payload.richType.rawValue, imageId, url, text, draft.audience.description,
                    draft.pushStyle.rawValue, draft.createdBy, draft.idempotencyKey, EpochMilliseconds(now),
                    EpochMilliseconds(due), draft.expiresAt.map(EpochMilliseconds), released ? EpochMilliseconds(now) : nil,
                    Self.contentJSON(draft.content), draft.template?.name, draft.template.map { Int64($0.version) },
                    draft.localDelivery?.time.description, dues.byZone == nil ? nil : dues.json, draft.purpose.rawValue,
                    try Self.variantsJSON(draft.variants)
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
                let end = try await Self.chunkEnd(of: draft.audience, after: nil, size: Self.firstOutboxChunk, in: db)
                addressed =
                    try await Self.insertDeliveries(
                        notificationId: id, audience: draft.audience, due: dues.sql, through: end, inSequence: inSequence, except: audiencePlatforms,
                        in: db) > 0
                if let end {
                    try await db.update("notifications").set("outbox_through", to: end).set("outbox_claimed_at", to: EpochMilliseconds(now))
                        .where("id", .equal, id).run()
                }
            } else {
                // Deliveries at a local time fall due over hours: nothing is gained by sending the first sooner.
                addressed =
                    try await Self.insertDeliveries(
                        notificationId: id, audience: draft.audience, due: dues.sql, inSequence: false, in: db) > 0
            }
            try await Self.insertFeedEntries(notificationId: id, audience: draft.audience, now: now, in: db)
            try await Self.assignVariants(draft.variants, notificationId: id, in: db)
            if released {
                try await Self.assignFeedSequence(notificationId: id, in: db)
                if addressed { try await engine.announce([.deliveriesDue], in: db) }
            }
            let row = try await db.select().columns(Self.notificationColumns).from("notifications").where("id", .equal, id).first()!
            return (try Self.notificationRecord(row), true)
        }
    }

    /// The notification with this id, including canceled and deleted ones.
    public func notification(id: Int64) async throws -> NotificationRecord? {
        try await engine.read { db in
            try await db.select().columns(Self.notificationColumns).from("notifications").where("id", .equal, id).first()
                .map(Self.notificationRecord)
        }
    }

    /// Notifications newest first, those with an id below `before` when given.
    public func notifications(limit: Int, before: Int64?) async throws -> [NotificationRecord] {
        try await engine.read { db in
            var query = db.select().columns(Self.notificationColumns).from("notifications")
            if let before { query = query.where("id", .lessThan, before) }
            return try await query.orderBy("id", .descending).limit(limit).all().map(Self.notificationRecord)
        }
    }

    /// Makes notifications whose `deliverAt` has come visible in their recipients' feeds; returns their ids.
    public func releaseDueNotifications(now: Date = .now) async throws -> [Int64] {
        try await engine.transaction { db in try await Self.releaseDue(now: now, in: db) }
    }

    /// Releases due notifications inside the transaction of `db`; those another process is releasing are skipped.
    static func releaseDue(now: Date, in db: any SQLDatabase) async throws -> [Int64] {
        let due = try await db.select().column("id").from("notifications")
            .where("released_at", .is, SQLLiteral.null).where("deliver_at", .lessThanOrEqual, EpochMilliseconds(now))
            .where("canceled_at", .is, SQLLiteral.null).where("deleted_at", .is, SQLLiteral.null)
            .orderBy("id").limit(100).skippingLocked(skipLockedClause(db)).all().map { try $0.int64("id") }
        for id in due {
            try await assignFeedSequence(notificationId: id, in: db)
            try await db.update("notifications").set("released_at", to: EpochMilliseconds(now)).where("id", .equal, id).run()
        }
        return due
    }

    /// Cancels a notification not yet sent, or recalls one already sent: either way its payload is gone, outstanding
    /// deliveries stop, it leaves every feed (the entries stay for the counts) and each recipient who could have seen it
    /// gets a `deleted` event, and a state push on each remote device.
    /// Returns the outcome and the users who were sent an event; `audit` makes the trail's entry of a cancel or recall.
    public func removeNotification(
        id: Int64, audit: @escaping @Sendable (RemovalOutcome) -> AuditEntry? = { _ in nil }, now: Date = .now
    ) async throws -> (outcome: RemovalOutcome, notifiedUsers: [String])? {
        try await engine.transaction { db in
            guard
                let row = try await db.select().columns(Self.notificationColumns + ["released_at"]).from("notifications")
                    .where("id", .equal, id).first()
            else { return nil }
            let record = try Self.notificationRecord(row)
            if record.canceledAt != nil || record.deletedAt != nil { return (.alreadyRemoved, []) }
            let sent = try await Self.tally(of: id, in: db).sent
            let outcome: RemovalOutcome = sent == 0 ? .canceled : .deleted
            // Another process's cancel, committed since the row was read, leaves nothing to remove here.
            let removed = try await db.update("notifications").set(outcome == .canceled ? "canceled_at" : "deleted_at", to: EpochMilliseconds(now))
                .where("id", .equal, id).where("canceled_at", .is, SQLLiteral.null).where("deleted_at", .is, SQLLiteral.null)
                .returning("id").first()
            guard removed != nil else { return (.alreadyRemoved, []) }
            try await SQLAuditLog.record(audit(outcome), in: db, now: now)
            try await Self.finishPending(
                db.update("deliveries").set("finished_at", to: EpochMilliseconds(now)).where("notification_id", .equal, id), as: .canceled,
                in: db)
            var notified: [String] = []
            if try row.optionalDate("released_at") != nil {
                notified = try await db.select().column("username").from("feed_entries").where("notification_id", .equal, id)
                    .orderBy("username").all().map { try $0.string("username") }
                let event = StreamEvent(cursor: 0, body: .deleted(richId: id))
                try await Self.appendEvents(event, usernames: notified, installationId: nil, now: now, engine: engine, in: db)
                try await Self.enqueueStatePushes(.deleted, notificationId: id, recipients: .feed(ofNotification: id), except: nil, now: now, in: db)
            }
            return (outcome, notified)
        }
    }

    /// Whether `username` is among the notification's recipients.
    public func isRecipient(notificationId: Int64, username: String) async throws -> Bool {
        try await engine.read { db in
            try await db.select().column("username").from("feed_entries").where("notification_id", .equal, notificationId)
                .where("username", .equal, username).first() != nil
        }
    }

    /// Gives each feed entry of a notification a fresh, distinct sequence number, so feed sync with `since` sees it.
    static func assignFeedSequence(notificationId: Int64, in db: any SQLDatabase) async throws {
        let count = try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("feed_entries")
            .where("notification_id", .equal, notificationId).first()!.int("n")
        guard count > 0 else { return }
        let first = try await reserveFeedSequence(count: count, in: db)
        // One statement numbers the recipients in username order, however many there are.
        try await db.raw(
            """
            UPDATE feed_entries SET seq = \(bind: first - 1) + numbered.position
            FROM (SELECT username, ROW_NUMBER() OVER (ORDER BY username) AS position FROM feed_entries
                  WHERE notification_id = \(bind: notificationId)) AS numbered
            WHERE feed_entries.notification_id = \(bind: notificationId) AND feed_entries.username = numbered.username
            """
        ).run()
    }

    /// Reserves `count` consecutive feed sequence numbers and returns the first.
    static func reserveFeedSequence(count: Int, in db: any SQLDatabase) async throws -> Int64 {
        try await reserve(counter: "feed", count: count, in: db)
    }

    /// One row of bound values for a multi-row INSERT.
    static func binds(_ values: any Encodable & Sendable...) -> [any SQLExpression] {
        values.map { SQLBind($0) }
    }

    static func columns(of payload: RichPayload) -> (Int64?, String?, String?) {
        switch payload {
        case .image(let id): (id, nil, nil)
        case .url(let url): (nil, url, nil)
        case .text(let text): (nil, nil, text)
        }
    }

    static func notificationRecord(_ row: any SQLRow) throws -> NotificationRecord {
        let richType = try row.enumeration("rich_type", as: RichType.self)
        let payload: RichPayload
        switch richType {
        case .img: payload = .image(id: try row.int64("image_id"))
        case .url: payload = .url(try row.string("url"))
        case .text: payload = .text(try row.string("text_body"))
        }
        return NotificationRecord(
            id: try row.int64("id"), message: try row.string("message"), payload: payload, audience: try row.string("audience"),
            pushStyle: try row.enumeration("push_style", as: PushStyle.self), createdBy: try row.string("created_by"),
            createdAt: try row.date("created_at"), deliverAt: try row.date("deliver_at"), expiresAt: try row.optionalDate("expires_at"),
            canceledAt: try row.optionalDate("canceled_at"), deletedAt: try row.optionalDate("deleted_at"),
            content: try content(row.optionalString("content")),
            template: try row.optionalString("template_name").map { name in
                TemplateReference(name: name, version: Int(try row.decode(column: "template_version", as: Int64.self)))
            },
            deliverAtLocal: try row.optionalString("deliver_at_local").flatMap(Timestamp.parseLocal),
            dueTimes: try row.optionalString("due_times").map { json in
                try JSONDecoder().decode([Int64].self, from: Data(json.utf8)).map(dateFromMilliseconds)
            } ?? [], purpose: try row.enumeration("purpose", as: NotificationPurpose.self), variants: try variants(row.optionalString("variants")),
            outboxComplete: try row.optionalString("outbox_through") == nil)
    }

    /// The JSON a notification's content is stored as; nil when it has none, as every notification before it had.
    static func contentJSON(_ content: PushContent) -> String? {
        guard !content.isEmpty else { return nil }
        return String(decoding: try! JSONEncoder.sortedKeys.encode(content), as: UTF8.self)
    }

    static func content(_ json: String?) throws -> PushContent {
        guard let json else { return PushContent() }
        return try JSONDecoder().decode(PushContent.self, from: Data(json.utf8))
    }
}

extension JSONEncoder {
    /// Stored JSON, the same bytes for the same value.
    static let sortedKeys: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
