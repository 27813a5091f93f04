public import RichPushCore
import SQLKit

extension SQLResultRepository {
    public func reach(notificationId id: Int64) async throws -> NotificationReach {
        try await engine.read { db in
            // Each sent delivery's fetch: its device's own where it named itself, else its user's from anywhere; a
            // fetch before this device's push (on another device) counts as at once.
            let rows = try await db.raw(
                """
                SELECT variant, \(unsafeRaw: Self.fetchStep) AS step, displayed, COUNT(*) AS n FROM (
                    SELECT d.variant, COALESCE(x.fetched_at, f.fetched_at) - d.finished_at AS delay,
                        CASE WHEN EXISTS (
                            SELECT 1 FROM receipts r WHERE r.notification_id = d.notification_id
                                AND r.installation_id = d.installation_id AND r.event = \(bind: ReceiptEvent.displayed.rawValue)
                        ) THEN 1 ELSE 0 END AS displayed
                    FROM deliveries d
                    LEFT JOIN installation_fetches x ON x.notification_id = d.notification_id AND x.installation_id = d.installation_id
                    LEFT JOIN feed_entries f ON f.notification_id = d.notification_id AND f.username = d.owner
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
