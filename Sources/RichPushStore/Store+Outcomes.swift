public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Records what the hubs answered. A retry makes the delivery due again after its delay; a gone device fails
    /// and its installation is never sent to again until it registers anew.
    public func recordOutcomes(_ results: [(job: DeliveryJob, outcome: DeliveryOutcome)], now: Date = .now) async throws {
        guard !results.isEmpty else { return }
        try await engine.transaction(.deferred) { db in try await Self.record(results, now: now, countingAttempts: held != nil, in: db) }
        held?.release(results.map(\.job.deliveryId))
    }

    /// Records outcomes; `countingAttempts` where the claim did not count the attempt (deliveries held in memory).
    static func record(
        _ results: [(job: DeliveryJob, outcome: DeliveryOutcome)], now: Date, countingAttempts: Bool, in db: any SQLDatabase
    ) async throws {
        let nowMs = EpochMilliseconds(now)
        func update(_ ids: any SQLExpression) -> SQLUpdateBuilder {
            let update = db.update("deliveries").set("lease_until", to: Int64?.none).where(ids)
            guard countingAttempts else { return update }
            return update.set("attempts", to: Self.oneMoreAttempt)
        }
        let sent = results.compactMap { $0.outcome == .sent ? $0.job.key : nil }
        for chunk in sent.chunked(Self.insertChunk) {
            try await finishPending(update(SQLDeliveryKeys(chunk)).set("finished_at", to: nowMs), as: .sent, in: db)
        }
        for (job, outcome) in results {
            switch outcome {
            case .sent:
                continue
            case .retry(let after, let code, let message):
                try await update(SQLDeliveryKeys([job.key])).set("due_at", to: EpochMilliseconds(now + after)).set("error_code", to: code)
                    .set("error_message", to: message).run()
            case .failed(let code, let message), .deviceGone(let code, let message):
                try await finishPending(
                    update(SQLDeliveryKeys([job.key])).set("finished_at", to: nowMs).set("error_code", to: code).set("error_message", to: message),
                    as: .failed,
                    in: db)
                if case .deviceGone = outcome { try await markGone(job.installationId, code: code, at: nowMs, in: db) }
            }
        }
    }

    /// A hub called the installation's device gone: nothing more is sent to it until it registers again.
    static func markGone(_ installationId: String, code: String, at nowMs: Int64, in db: any SQLDatabase) async throws {
        try await db.update("installations").set("dead_at", to: nowMs).set("dead_reason", to: code)
            .where("id", .equal, installationId).where("dead_at", .is, SQLLiteral.null).run()
    }
}
