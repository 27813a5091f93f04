import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Delivery counts, user states and failures of one notification.
    public func counts(notificationId id: Int64) async throws -> NotificationCounts {
        try await engine.read { db in
            let tally = try await Self.tally(of: id, in: db)
            func count(_ build: (SQLSelectBuilder) -> SQLSelectBuilder) async throws -> Int {
                try await build(db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")).first()!.int("n")
            }
            let fetched = try await count {
                $0.from("feed_entries").where("notification_id", .equal, id).where("fetched_at", .isNot, SQLLiteral.null)
            }
            let opened = try await count {
                $0.from("feed_entries").where("notification_id", .equal, id)
                    .where("user_action_state", .equal, UserActionState.activated.rawValue)
            }
            let dismissed = try await count {
                $0.from("feed_entries").where("notification_id", .equal, id)
                    .where("user_action_state", .equal, UserActionState.dismissed.rawValue)
            }
            let displayed = try await count {
                $0.from("receipts").where("notification_id", .equal, id).where("event", .equal, ReceiptEvent.displayed.rawValue)
            }
            let errors = try await db.select().columns("installation_id", "platform", "error_code", "error_message", "finished_at")
                .from("deliveries").where("notification_id", .equal, id).where(DeliveryState.isFailure).orderBy("id").limit(100).all()
                .map { row in
                    DeliveryError(
                        installationId: try row.string("installation_id"), platform: try row.enumeration("platform", as: Platform.self),
                        code: try row.optionalString("error_code") ?? "unknown", message: try row.optionalString("error_message") ?? "",
                        at: try row.optionalDate("finished_at"))
                }
            return NotificationCounts(
                tally: tally, fetched: fetched, displayed: displayed, opened: opened, dismissed: dismissed, errors: errors)
        }
    }
}
