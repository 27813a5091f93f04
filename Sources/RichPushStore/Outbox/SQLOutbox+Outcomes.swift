import Foundation
import RichPushCore
import SQLKit

extension SQLOutbox {
    /// Records outcomes, each with the attempt its job made: a claim that held its deliveries in memory or took them
    /// in their sequence did not count it in their rows. A count is never lowered: a delivery whose claim ran out of
    /// lease was counted again when it was claimed again.
    static func record(_ results: [RecordedAttempt], now: Date, in db: any SQLDatabase) async throws {
        let nowMs = EpochMilliseconds(now)
        func update(_ ids: any SQLExpression, attempts: Int) -> SQLUpdateBuilder {
            let counted = SQLQueryString("CASE WHEN attempts > \(literal: attempts) THEN attempts ELSE \(literal: attempts) END")
            return db.update("deliveries").set("lease_until", to: Int64?.none).set("attempts", to: counted).where(ids)
        }
        // A batch's pushes mostly share one attempt: a statement for each.
        var sent: [Int: [DeliveryKey]] = [:]
        for result in results where result.outcome == .sent { sent[result.attempt, default: []].append(result.key) }
        for (attempt, keys) in sent.sorted(by: { $0.key < $1.key }) {
            for chunk in keys.chunked(SQLNotificationRepository.insertChunk) {
                try await finishPending(update(SQLDeliveryKeys(chunk), attempts: attempt).set("finished_at", to: nowMs), as: .sent, in: db)
            }
        }
        // The deliveries a failing hub holds back share their outcome, and a batch's retries and failures mostly share
        // their attempt and error (a hub calling many devices gone): a statement for each, and one for the
        // installations each hub's code called gone. A statement for each delivery was a statement prepared for each,
        // as its keys are in its text.
        var postponed: [Shared: [DeliveryKey]] = [:]
        var retried: [Shared: [DeliveryKey]] = [:]
        var failed: [Shared: [DeliveryKey]] = [:]
        var gone: [String: [String]] = [:]
        for result in results {
            switch result.outcome {
            case .sent:
                continue
            case .postponed(let after, let code, let message):
                // Not attempted: the deliveries keep the attempts they had made before the claim that held them back.
                postponed[Shared(attempts: result.attempt - 1, code: code, message: message, after: after), default: []].append(result.key)
            case .retry(let after, let code, let message):
                retried[Shared(attempts: result.attempt, code: code, message: message, after: after), default: []].append(result.key)
            case .failed(let code, let message), .deviceGone(let code, let message):
                failed[Shared(attempts: result.attempt, code: code, message: message), default: []].append(result.key)
                if case .deviceGone = result.outcome { gone[code, default: []].append(result.installationId) }
            }
        }
        for (postponement, keys) in postponed {
            for chunk in keys.chunked(SQLNotificationRepository.insertChunk) {
                try await db.update("deliveries").set("lease_until", to: Int64?.none).set("attempts", to: Int64(postponement.attempts))
                    .set("due_at", to: EpochMilliseconds(now + postponement.after)).set("in_sequence", to: SQLLiteral.boolean(false))
                    .set("error_code", to: postponement.code).set("error_message", to: postponement.message).where(SQLDeliveryKeys(chunk))
                    .run()
            }
        }
        for (retry, keys) in retried {
            for chunk in keys.chunked(SQLNotificationRepository.insertChunk) {
                try await update(SQLDeliveryKeys(chunk), attempts: retry.attempts).set("due_at", to: EpochMilliseconds(now + retry.after))
                    .set("in_sequence", to: SQLLiteral.boolean(false)).set("error_code", to: retry.code).set("error_message", to: retry.message)
                    .run()
            }
        }
        for (failure, keys) in failed {
            for chunk in keys.chunked(SQLNotificationRepository.insertChunk) {
                try await finishPending(
                    update(SQLDeliveryKeys(chunk), attempts: failure.attempts).set("finished_at", to: nowMs).set("error_code", to: failure.code)
                        .set("error_message", to: failure.message),
                    as: .failed,
                    in: db)
            }
        }
        for (code, installations) in gone {
            for chunk in installations.chunked(SQLNotificationRepository.insertChunk) {
                try await markGone(Array(chunk), code: code, at: nowMs, in: db)
            }
        }
        try await SQLFallbackQueue.schedule(results, now: now, in: db)
        try await tellWebhooks(results, now: now, in: db)
    }

    /// Puts `delivery.sent`, `delivery.failed` and `notification.completed` events in the outbox of the webhooks that
    /// listen to them.
    private static func tellWebhooks(_ results: [RecordedAttempt], now: Date, in db: any SQLDatabase) async throws {
        let webhooks = try await WebhookSubscribers.read(in: db)
        guard webhooks.wantsAny else { return }
        var drafts: [WebhookEventDraft] = []
        var finished: [Int64] = []
        for result in results {
            let data = WebhookEventData(
                notificationId: result.notificationId, deliveryId: result.deliveryId, installationId: result.installationId,
                username: result.owner, platform: result.platform)
            switch result.outcome {
            case .sent:
                finished.append(result.notificationId)
                if webhooks.wants(.deliverySent) { drafts.append(WebhookEventDraft(type: .deliverySent, data: data)) }
            case .failed(let code, _), .deviceGone(let code, _):
                finished.append(result.notificationId)
                var failure = data
                failure.errorCode = code
                if webhooks.wants(.deliveryFailed) { drafts.append(WebhookEventDraft(type: .deliveryFailed, data: failure)) }
            case .retry, .postponed:
                continue
            }
        }
        try await webhooks.enqueue(drafts, now: now, in: db)
        try await webhooks.enqueueCompletions(of: finished, now: now, in: db)
    }

    /// What the deliveries written in one statement share: the attempts their rows count, the hub's error, and, for
    /// those held back or tried again, how long until they fall due.
    private struct Shared: Hashable {
        var attempts: Int
        var code: String
        var message: String
        var after: TimeInterval = 0
    }

    /// A hub called the installations' devices gone: nothing more is sent to them until they register again.
    static func markGone(_ installationIds: [String], code: String, at nowMs: Int64, in db: any SQLDatabase) async throws {
        try await db.update("installations").set("dead_at", to: nowMs).set("dead_reason", to: code)
            .where("id", .in, installationIds).where("dead_at", .is, SQLLiteral.null).run()
    }
}
