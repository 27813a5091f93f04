import Foundation
import RichPushCore
import SQLKit

extension SQLOutbox {
    /// The claimed deliveries whose turn has come, of notifications with a delivery rate (`rates`, pushes a minute by
    /// notification). Each delivery claimed without a turn gets the next one, a rate's interval after the last
    /// handed out: it goes now if that is not later than `now`, else it is due again at its turn (the claim did not
    /// count as an attempt) and goes when claimed then. Turns are kept per notification in `delivery_paces`, whose
    /// row every claimer locks for the rest of its transaction, so processes claiming one campaign at once share one
    /// pace. A pace left idle does not bank turns: after a pause the next turn is now.
    ///
    /// Turns fall due in steps of a tenth of a second, so a claim lets go every delivery whose turn came since the
    /// last, and a fast pace costs ten claims a second rather than one a push.
    static func pacing(
        _ claimed: [ClaimedRow], rates: [Int64: Int], now: Date, letGo: ([Int64]) -> Void, in db: any SQLDatabase
    ) async throws -> [ClaimedRow] {
        guard !rates.isEmpty else { return claimed }
        var passing: [ClaimedRow] = []
        var unpaced: [Int64: [ClaimedRow]] = [:]
        for delivery in claimed {
            if rates[delivery.notificationId] != nil, delivery.waitedFor != Wait.pace.code {
                unpaced[delivery.notificationId, default: []].append(delivery)
            } else {
                passing.append(delivery)
            }
        }
        let nowMs = EpochMilliseconds(now)
        var waiting: [Postponement: [DeliveryKey]] = [:]
        for (id, deliveries) in unpaced.sorted(by: { $0.key < $1.key }) {
            let interval = 60_000 / Double(rates[id]!)
            var turn = Double(max(try await lockPace(of: id, startingAt: nowMs, in: db), nowMs))
            for delivery in deliveries.sorted(by: { $0.deliveryId < $1.deliveryId }) {
                if turn <= Double(nowMs) {
                    passing.append(delivery)
                } else {
                    let due = dateFromMilliseconds(Int64((turn / 100).rounded(.up)) * 100)
                    waiting[Postponement(due: due, attempts: delivery.attempt - 1), default: []].append(delivery.key)
                }
                turn += interval
            }
            try await db.update("delivery_paces").set("next_at", to: Int64(turn.rounded(.up))).where("notification_id", .equal, id).run()
        }
        try await postpone(waiting, for: .pace, in: db)
        letGo(waiting.values.flatMap { $0.map(\.deliveryId) })
        return passing
    }

    /// The next turn of notification `id`'s pace (`nowMs` for a pace not yet begun), with its row locked until the
    /// transaction ends: an upsert that changes nothing still takes the row.
    private static func lockPace(of id: Int64, startingAt nowMs: Int64, in db: any SQLDatabase) async throws -> Int64 {
        try await db.raw(
            """
            INSERT INTO delivery_paces (notification_id, next_at) VALUES (\(bind: id), \(bind: nowMs))
            ON CONFLICT (notification_id) DO UPDATE SET next_at = delivery_paces.next_at
            RETURNING next_at
            """
        ).first()!.int64("next_at")
    }
}
