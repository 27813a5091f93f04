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
    /// last, and a fast pace costs ten claims a second rather than one a push. Deliveries on `audiencePlatforms` take
    /// no turn: their hub sends to the whole audience at once.
    static func pacing(
        _ claimed: [ClaimedRow], rates: [Int64: Int], audiencePlatforms: Set<Platform>, now: Date, letGo: ([Int64]) -> Void,
        in db: any SQLDatabase
    ) async throws -> [ClaimedRow] {
        guard !rates.isEmpty else { return claimed }
        let nowMs = EpochMilliseconds(now)
        var passing: [ClaimedRow] = []
        var unpaced: [Int64: [ClaimedRow]] = [:]
        var waiting: [Postponement: [DeliveryKey]] = [:]
        for delivery in claimed {
            if rates[delivery.notificationId] == nil || audiencePlatforms.contains(delivery.platform) {
                passing.append(delivery)
            } else if delivery.waitedFor != Wait.pace.code {
                unpaced[delivery.notificationId, default: []].append(delivery)
            } else {
                // Its turn has come: claims read the pending index by due time, and only audiences are taken before.
                passing.append(delivery)
            }
        }
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

    /// How far ahead of now turns are handed out: a claim takes no delivery without a turn of a campaign whose next
    /// turn is further ahead (``pacedAhead(at:in:)``), so a large campaign's deliveries get their turns as they come
    /// near instead of all at once, which had its deliveries whose turn came wait behind the rest until every one had
    /// its turn.
    static let turnsAhead: Int64 = 1000

    /// The notifications whose pace has handed out turns further than ``turnsAhead`` past `nowMs`.
    static func pacedAhead(at nowMs: Int64, in db: any SQLDatabase) async throws -> Set<Int64> {
        Set(
            try await db.select().column("notification_id").from("delivery_paces").where("next_at", .greaterThan, nowMs + turnsAhead).all()
                .map { try $0.int64("notification_id") })
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
