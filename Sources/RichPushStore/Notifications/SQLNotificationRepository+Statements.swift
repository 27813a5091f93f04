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

extension SQLNotificationRepository {
    static let notificationColumns = [
        "id", "message", "rich_type", "image_id", "url", "text_body", "audience", "push_style", "created_by", "created_at",
        "deliver_at", "expires_at", "canceled_at", "deleted_at", "content", "template_name", "template_version", "deliver_at_local",
        "due_times", "purpose", "variants", "outbox_through", "fallback_after", "delivery_rate",
    ]
    /// Rows per multi-row INSERT: well under every engine's limit on bound parameters.
    static let insertChunk = 500

    /// Releases due notifications inside the transaction of `db`; those another process is releasing are skipped.
    static func releaseDue(now: Date, in db: any SQLDatabase) async throws -> [Int64] {
        let due = try await db.select().column("id").from("notifications")
            .where("released_at", .is, SQLLiteral.null).where("deliver_at", .lessThanOrEqual, EpochMilliseconds(now))
            .where("canceled_at", .is, SQLLiteral.null).where("deleted_at", .is, SQLLiteral.null)
            .orderBy("id").limit(100).skippingLocked(SQLOutbox.skipLockedClause(db)).all().map { try $0.int64("id") }
        for id in due {
            try await assignFeedSequence(notificationId: id, in: db)
            try await db.update("notifications").set("released_at", to: EpochMilliseconds(now)).where("id", .equal, id).run()
        }
        return due
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
        try await SQLEventLog.reserve(counter: "feed", count: count, in: db)
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
            outboxComplete: try row.optionalString("outbox_through") == nil,
            fallbackAfter: try row.decode(column: "fallback_after", as: Int64?.self).map { Double($0) / 1000 },
            deliveryRate: try row.decode(column: "delivery_rate", as: Int64?.self).map { Int($0) })
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
