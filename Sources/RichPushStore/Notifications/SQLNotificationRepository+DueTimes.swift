import Foundation
public import RichPushCore
import SQLKit

/// When the deliveries of a new notification fall due: all at once, or at a wall-clock time in each device's zone.
struct DueTimes {
    /// The earliest instant, which releases the notification.
    var first: Date
    /// For a delivery in each device's zone: the instant of each zone the audience's installations name, and of the
    /// default zone for the others. Nil when every delivery falls due at `first`.
    var byZone: (zones: [String: Date], fallback: Date)?

    /// The due time of the delivery to installation `i`, as SQL: a bound instant, or one per zone.
    var sql: any SQLExpression {
        guard let byZone, !byZone.zones.isEmpty else { return SQLBind(EpochMilliseconds(byZone?.fallback ?? first)) }
        var cases = SQLQueryString("CASE \(SQLColumn("time_zone", table: "i"))")
        for (zone, due) in byZone.zones.sorted(by: { $0.key < $1.key }) {
            cases.appendInterpolation(SQLQueryString(" WHEN \(bind: zone) THEN \(literal: EpochMilliseconds(due))"))
        }
        cases.appendInterpolation(SQLQueryString(" ELSE \(literal: EpochMilliseconds(byZone.fallback)) END"))
        return cases
    }

    /// The distinct instants, earliest first, as the JSON the notification keeps.
    var json: String {
        let instants = Set((byZone.map { Array($0.zones.values) + [$0.fallback] } ?? [first]).map(EpochMilliseconds)).sorted()
        return "[" + instants.map(String.init).joined(separator: ",") + "]"
    }
}

extension SQLNotificationRepository {
    /// The due times of `draft`'s deliveries: its `deliverAt`, or with a local delivery the instant its wall-clock time
    /// comes in each zone its audience's installations are in. None is earlier than `now`.
    static func dueTimes(of draft: NotificationDraft, now: Date, in db: any SQLDatabase) async throws -> DueTimes {
        guard let local = draft.localDelivery else { return DueTimes(first: max(draft.deliverAt, now)) }
        let zones = try await SQLAudience.addressed(
            by: draft.audience, db.select().distinct().column(SQLColumn("time_zone", table: "i"), as: "time_zone")
        ).all().compactMap { try $0.optionalString("time_zone") }
        var byZone: [String: Date] = [:]
        for zone in zones { byZone[zone] = max(local.instant(in: zone), now) }
        let fallback = max(local.instant(in: nil), now)
        return DueTimes(first: (Array(byZone.values) + [fallback]).min()!, byZone: (byZone, fallback))
    }
}
