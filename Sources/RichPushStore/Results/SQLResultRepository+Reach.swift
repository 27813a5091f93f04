public import RichPushCore
import SQLKit

extension SQLResultRepository {
    public func reach(notificationId id: Int64) async throws -> NotificationReach {
        try await engine.read { db in
            // Until a device fetched or showed it, every delivery sent is unreached: counted from the tallies (by
            // variant, where it has variants) without looking up each delivery's fetch and display, which a status
            // followed through a large send would otherwise do every second over everything sent so far.
            guard try await Self.anyFetchOrDisplay(of: id, in: db) else { return try await Self.unreached(id, in: db) }
            // Each sent delivery's fetch: its device's own where it named itself, else its user's from anywhere; a
            // fetch before this device's push (on another device) counts as at once. A device has at most one
            // display receipt of a notification (its key), so a join finds it once, where a correlated EXISTS was
            // looked up twice a delivery (once to group by, once to show).
            let rows = try await db.raw(
                """
                SELECT variant, \(unsafeRaw: Self.fetchStep) AS step, displayed, COUNT(*) AS n FROM (
                    SELECT d.variant, COALESCE(x.fetched_at, f.fetched_at) - d.finished_at AS delay,
                        CASE WHEN r.notification_id IS NULL THEN 0 ELSE 1 END AS displayed
                    FROM deliveries d
                    LEFT JOIN installation_fetches x ON x.notification_id = d.notification_id AND x.installation_id = d.installation_id
                    LEFT JOIN feed_entries f ON f.notification_id = d.notification_id AND f.username = d.owner
                    LEFT JOIN receipts r ON r.notification_id = d.notification_id AND r.installation_id = d.installation_id
                        AND r.event = \(bind: ReceiptEvent.displayed.rawValue)
                    WHERE d.notification_id = \(bind: id) AND d.state = 'sent'
                ) sent
                GROUP BY variant, step, displayed
                """
            ).all()
            var total = FetchDelays()
            var variants: [String: FetchDelays] = [:]
            for row in rows {
                let step = try row.decodeNil(column: "step") ? nil : try row.decode(column: "step", as: Int64.self)
                let (displayed, count) = (try row.int("displayed") == 1, try row.int("n"))
                total.add(step: step, displayed: displayed, count: count)
                if let variant = try row.optionalString("variant") {
                    variants[variant, default: FetchDelays()].add(step: step, displayed: displayed, count: count)
                }
            }
            return NotificationReach(total: total.reach, variants: variants.mapValues(\.reach))
        }
    }

    private static func anyFetchOrDisplay(of id: Int64, in db: any SQLDatabase) async throws -> Bool {
        let row = try await db.raw(
            """
            SELECT CASE WHEN EXISTS (SELECT 1 FROM installation_fetches WHERE notification_id = \(bind: id))
                OR EXISTS (SELECT 1 FROM feed_entries WHERE notification_id = \(bind: id) AND fetched_at IS NOT NULL)
                OR EXISTS (SELECT 1 FROM receipts WHERE notification_id = \(bind: id) AND event = \(bind: ReceiptEvent.displayed.rawValue))
            THEN 1 ELSE 0 END AS found
            """
        ).first()
        return try row?.int("found") == 1
    }

    /// The reach of notification `id` when nothing of it was fetched or displayed.
    private static func unreached(_ id: Int64, in db: any SQLDatabase) async throws -> NotificationReach {
        let variants = try await db.select().column("variants").from("notifications").where("id", .equal, id).first()?.optionalString("variants")
        guard variants != nil else { return NotificationReach(total: Reach(notReached: try await SQLOutbox.tally(of: id, in: db).sent)) }
        var reach = NotificationReach()
        for row in try await db.select().column("variant").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("deliveries")
            .where("notification_id", .equal, id).where("state", .equal, DeliveryState.sent.rawValue).groupBy("variant").all()
        {
            let count = try row.int("n")
            reach.total.notReached += count
            if let variant = try row.optionalString("variant") { reach.variants[variant] = Reach(notReached: count) }
        }
        return reach
    }

    /// The step of ``FetchDelays`` that `delay` (milliseconds from a push to its fetch, NULL for none) falls in.
    private static var fetchStep: String {
        var cases = "CASE WHEN delay IS NULL THEN NULL WHEN delay <= 0 THEN 0"
        for tier in FetchDelays.tiers {
            let step = "\(tier.firstStep) + delay / \(tier.millisecondsPerStep)"
            cases += tier.below.map { " WHEN delay < \($0) THEN \(step)" } ?? " ELSE \(step)"
        }
        return cases + " END"
    }
}
