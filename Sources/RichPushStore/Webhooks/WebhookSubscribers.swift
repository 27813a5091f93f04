import Foundation
public import RichPushCore
import SQLKit

/// The enabled webhooks of each event type, read in the transaction of what happened: the events are written into
/// their outbox in that same transaction, so they commit together with it or not at all.
///
/// A store without webhooks pays one read of an empty table per transaction that could raise an event; nothing is
/// composed for a type nobody listens to.
struct WebhookSubscribers {
    private let webhooks: [WebhookEventType: [String]]

    static func read(in db: any SQLDatabase) async throws -> WebhookSubscribers {
        var webhooks: [WebhookEventType: [String]] = [:]
        for row in try await db.select().columns("id", "events").from("webhooks").where("disabled_at", .is, SQLLiteral.null).all() {
            let id = try row.string("id")
            for type in WebhookEventTypes.decode(try row.string("events")) { webhooks[type, default: []].append(id) }
        }
        return WebhookSubscribers(webhooks: webhooks)
    }

    func wants(_ type: WebhookEventType) -> Bool {
        webhooks[type] != nil
    }

    var wantsAny: Bool { !webhooks.isEmpty }

    /// Puts each event in the outbox of every webhook that listens to its type; an event whose dedupe key a webhook
    /// already holds is not put there again.
    func enqueue(_ drafts: [WebhookEventDraft], now: Date, in db: any SQLDatabase) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var rows: [[any SQLExpression]] = []
        for draft in drafts {
            guard let ids = webhooks[draft.type] else { continue }
            let data = String(decoding: try encoder.encode(draft.data), as: UTF8.self)
            for id in ids {
                rows.append([
                    SQLBind(id), SQLBind(draft.type.rawValue), SQLBind(data), SQLBind(EpochMilliseconds(now)), SQLBind(draft.dedupeKey),
                ])
            }
        }
        for chunk in rows.chunked(SQLNotificationRepository.insertChunk) {
            try await db.insert(into: "webhook_events").columns("webhook_id", "type", "data", "occurred_at", "dedupe_key").rows(Array(chunk))
                .ignoringConflicts(with: ["webhook_id", "dedupe_key"]).run()
        }
    }

    /// A `notification.completed` for each of `notificationIds` whose outbox is written whole and has no delivery
    /// outstanding; each webhook hears of a notification's completion once.
    func enqueueCompletions(of notificationIds: some Collection<Int64>, now: Date, in db: any SQLDatabase) async throws {
        guard wants(.notificationCompleted), !notificationIds.isEmpty else { return }
        var drafts: [WebhookEventDraft] = []
        for id in Set(notificationIds).sorted() {
            guard
                let row = try await db.select().columns("outbox_through", "deliver_at", "expires_at", "canceled_at").from("notifications")
                    .where("id", .equal, id).first(),
                try row.optionalString("outbox_through") == nil
            else { continue }
            let tally = try await SQLOutbox.tally(of: id, in: db)
            guard tally.pending == 0 else { continue }
            let state = NotificationState.derive(
                tally: tally, deliverAt: try row.date("deliver_at"), expiresAt: try row.optionalDate("expires_at"),
                canceled: try row.optionalDate("canceled_at") != nil, now: now)
            drafts.append(
                WebhookEventDraft(
                    type: .notificationCompleted,
                    data: WebhookEventData(notificationId: id, state: state, sent: tally.sent, failed: tally.failed),
                    dedupeKey: "completed:\(id)"))
        }
        try await enqueue(drafts, now: now, in: db)
    }
}

/// How a webhook's event types are kept in its row: names joined by commas.
enum WebhookEventTypes {
    static func encode(_ types: [WebhookEventType]) -> String {
        types.map(\.rawValue).joined(separator: ",")
    }

    static func decode(_ text: String) -> [WebhookEventType] {
        text.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) }
    }
}
