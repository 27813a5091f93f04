public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Up to `limit` deliveries of a notification with ids above `after`, in id order.
    public func deliveryResults(notificationId: Int64, after: Int64 = 0, limit: Int) async throws -> [DeliveryResult] {
        try await engine.read { db in
            let displayed = SQLSubquery.select {
                $0.column(SQLFunction("MIN", args: SQLColumn("created_at", table: "receipts"))).from("receipts")
                    .where(SQLColumn("notification_id", table: "receipts"), .equal, SQLColumn("notification_id", table: "deliveries"))
                    .where(SQLColumn("installation_id", table: "receipts"), .equal, SQLColumn("installation_id", table: "deliveries"))
                    .where(SQLColumn("event", table: "receipts"), .equal, SQLLiteral.string(ReceiptEvent.displayed.rawValue))
            }
            let rows = try await db.select()
                .columns(
                    SQLColumn("id", table: "deliveries"), SQLColumn("installation_id", table: "deliveries"),
                    SQLColumn("owner", table: "deliveries"), SQLColumn("platform", table: "deliveries"),
                    SQLColumn("variant", table: "deliveries"), SQLColumn("language", table: "deliveries"),
                    SQLColumn("state", table: "deliveries"), SQLColumn("error_code", table: "deliveries"),
                    SQLColumn("attempts", table: "deliveries"), SQLColumn("finished_at", table: "deliveries"),
                    SQLColumn("fetched_at", table: "feed_entries"), SQLColumn("read_state", table: "feed_entries"),
                    SQLColumn("user_action_state", table: "feed_entries"), SQLAlias(displayed, as: SQLIdentifier("displayed_at"))
                )
                .from("deliveries")
                .join(
                    "feed_entries", method: SQLJoinMethod.left,
                    on: SQLBinaryExpression(
                        SQLBinaryExpression(
                            SQLColumn("notification_id", table: "feed_entries"), .equal, SQLColumn("notification_id", table: "deliveries")),
                        .and, SQLBinaryExpression(SQLColumn("username", table: "feed_entries"), .equal, SQLColumn("owner", table: "deliveries")))
                )
                .where(SQLColumn("notification_id", table: "deliveries"), .equal, SQLBind(notificationId))
                .where(SQLColumn("id", table: "deliveries"), .greaterThan, SQLBind(after))
                .orderBy(SQLColumn("id", table: "deliveries")).limit(limit).all()
            return try rows.map { row in
                let state = try row.string("state")
                return DeliveryResult(
                    deliveryId: try row.int64("id"), installationId: try row.string("installation_id"), owner: try row.string("owner"),
                    platform: try row.enumeration("platform", as: Platform.self), variant: try row.optionalString("variant"),
                    language: try row.optionalString("language"), state: state,
                    reason: state == DeliveryState.sent.rawValue ? nil : try row.optionalString("error_code"),
                    attempts: try row.int("attempts"),
                    sentAt: state == DeliveryState.sent.rawValue ? try row.optionalDate("finished_at") : nil,
                    fetchedAt: try row.optionalDate("fetched_at"), displayedAt: try row.optionalDate("displayed_at"),
                    readState: try row.optionalString("read_state").flatMap(ReadState.init(rawValue:)) ?? .unread,
                    userActionState: try row.optionalString("user_action_state").flatMap(UserActionState.init(rawValue:)) ?? .noInteraction)
            }
        }
    }

    /// What happened to a notification in each `step` from `start` until `end`, counted in the store by bucket.
    ///
    /// Opens and dismissals fall in the bucket of their user's last change of state, which is when the store last
    /// touched the user's feed entry.
    public func timeline(notificationId id: Int64, from start: Date, to end: Date, step: TimeInterval) async throws -> [TimelineBucket] {
        let startMs = EpochMilliseconds(start)
        let stepMs = Int64(step * 1000)
        let count = max(1, Int((EpochMilliseconds(end) - startMs + stepMs - 1) / stepMs))
        var buckets = (0..<count).map { TimelineBucket(start: start + Double($0) * step) }
        try await engine.read { db in
            func tally(_ table: String, at column: String, where filter: (SQLSelectBuilder) -> SQLSelectBuilder) async throws -> [Int: Int] {
                let bucket = SQLBinaryExpression(
                    SQLGroupExpression(SQLBinaryExpression(SQLIdentifier(column), .subtract, SQLLiteral.numeric(String(startMs)))),
                    .divide, SQLLiteral.numeric(String(stepMs)))
                let rows = try await filter(
                    db.select().column(SQLAlias(bucket, as: SQLIdentifier("bucket")))
                        .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(table)
                        .where("notification_id", .equal, id).where(column, .isNot, SQLLiteral.null)
                        .where(column, .greaterThanOrEqual, startMs)
                ).groupBy(SQLIdentifier("bucket")).all()
                var counts: [Int: Int] = [:]
                for row in rows { counts[try row.int("bucket")] = try row.int("n") }
                return counts
            }
            let sent = try await tally("deliveries", at: "finished_at") { $0.where("state", .equal, DeliveryState.sent.rawValue) }
            let fetched = try await tally("feed_entries", at: "fetched_at") { $0 }
            let displayed = try await tally("receipts", at: "created_at") { $0.where("event", .equal, ReceiptEvent.displayed.rawValue) }
            let opened = try await tally("feed_entries", at: "updated_at") {
                $0.where("user_action_state", .equal, UserActionState.activated.rawValue)
            }
            let dismissed = try await tally("feed_entries", at: "updated_at") {
                $0.where("user_action_state", .equal, UserActionState.dismissed.rawValue)
            }
            for index in buckets.indices {
                buckets[index].sent = sent[index] ?? 0
                buckets[index].fetched = fetched[index] ?? 0
                buckets[index].displayed = displayed[index] ?? 0
                buckets[index].opened = opened[index] ?? 0
                buckets[index].dismissed = dismissed[index] ?? 0
            }
        }
        return buckets
    }
}
