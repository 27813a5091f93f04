public import Foundation
public import RichPushCore
import SQLKit

extension SQLOutbox {
    public func retryFailed(of id: Int64, audit: @escaping @Sendable (Int) -> AuditEntry?, now: Date) async throws -> RetryOutcome {
        try await engine.transaction { db in
            guard
                let row = try await db.select().columns("canceled_at", "deleted_at", "expires_at").from("notifications")
                    .where("id", .equal, id).first()
            else { return .notFound }
            if try row.optionalDate("canceled_at") != nil || row.optionalDate("deleted_at") != nil { return .removed }
            if let expiresAt = try row.optionalDate("expires_at"), expiresAt <= now { return .expired }
            let reopened = try await db.update("deliveries").set("state", to: DeliveryState.pending.rawValue).set("attempts", to: Int64(0))
                .set("due_at", to: EpochMilliseconds(now)).set("finished_at", to: Int64?.none).set("lease_until", to: Int64?.none)
                .set("in_sequence", to: SQLLiteral.boolean(false)).set("error_code", to: String?.none).set("error_message", to: String?.none)
                .where("notification_id", .equal, id).where("state", .equal, DeliveryState.failed.rawValue)
                // A device a hub reported gone fails again without being sent until it registers anew.
                .where(SQLQueryString("installation_id NOT IN (SELECT id FROM installations WHERE dead_at IS NOT NULL)"))
                .returning("id").all().count
            guard reopened > 0 else { return .retried(0) }
            try await Self.tallyReopened(reopened, of: id, in: db)
            try await SQLAuditLog.record(audit(reopened), in: db, now: now)
            try await engine.announce([.deliveriesDue], in: db)
            return .retried(reopened)
        }
    }
}
