public import Foundation
public import RichPushCore
import SQLKit

extension SQLOutbox {
    /// The claimed deliveries `limits` let through now. Of marketers' notifications, those inside their device's
    /// quiet hours are due again when the hours end (the claim did not count as an attempt), and those whose user
    /// already got as many marketers' notifications within the cap's period as it allows end as `capped`.
    ///
    /// A user's devices share one count: a notification reaching several of them counts once. The count is kept per
    /// user in the store under a lock of that user's name for the rest of the transaction, so dispatchers in several
    /// processes claiming for one user at once never let more through than the cap.
    static func applying(
        _ limits: CampaignLimits, to claimed: [ClaimedRow], marketing: Set<Int64>, now: Date, letGo: ([Int64]) -> Void,
        in db: any SQLDatabase
    ) async throws -> [ClaimedRow] {
        guard limits.isActive, !marketing.isEmpty else { return claimed }
        var passing: [ClaimedRow] = []
        var waiting: [Postponement: [DeliveryKey]] = [:]
        var capCandidates: [ClaimedRow] = []
        for delivery in claimed {
            guard marketing.contains(delivery.notificationId) else {
                passing.append(delivery)
                continue
            }
            let zone = delivery.timeZone.flatMap(TimeZone.init(identifier:)) ?? limits.defaultTimeZone
            if let quietHours = limits.quietHours, let end = quietHours.end(after: now, in: zone) {
                waiting[Postponement(due: end, attempts: delivery.attempt - 1), default: []].append(delivery.key)
            } else {
                capCandidates.append(delivery)
            }
        }
        try await postpone(waiting, for: .quietHours, in: db)
        letGo(waiting.values.flatMap { $0.map(\.deliveryId) })
        guard let cap = limits.frequencyCap else { return passing + capCandidates }
        let (allowed, capped) = try await count(capCandidates, against: cap, now: now, in: db)
        try await finish(
            capped, as: .capped, code: "delivery.capped",
            message: "its user had already been sent \(cap.count) marketers' notifications within \(cap.periodText) (--frequency-cap)",
            at: EpochMilliseconds(now), in: db)
        return passing + allowed
    }

    /// When held-back deliveries fall due again, and the attempts they had made before the claim that held them.
    struct Postponement: Hashable {
        var due: Date
        var attempts: Int
    }

    /// Why a claim holds a delivery back until later.
    enum Wait {
        case quietHours
        case pace

        /// The reason the deliveries list shows while it waits, and a claim reads when it comes due.
        var code: String {
            switch self {
            case .quietHours: "delivery.quietHours"
            case .pace: "delivery.paced"
            }
        }

        func message(until due: Date) -> String {
            switch self {
            case .quietHours: "its device's quiet hours (--quiet-hours) last until \(Timestamp.format(due))"
            case .pace: "its notification's deliveryRate gives it its turn at \(Timestamp.format(due))"
            }
        }
    }

    /// Makes deliveries due again at the instants they are keyed by, unleased and out of their sequence, without the
    /// attempt of the claim that held them back. Their reason says why they wait, so the deliveries list shows it
    /// while they do.
    static func postpone(_ waiting: [Postponement: [DeliveryKey]], for wait: Wait, in db: any SQLDatabase) async throws {
        for (postponement, deliveries) in waiting {
            let due = postponement.due
            for chunk in deliveries.chunked(SQLNotificationRepository.insertChunk) {
                try await db.update("deliveries").set("due_at", to: EpochMilliseconds(due)).set("lease_until", to: Int64?.none)
                    .set("attempts", to: Int64(postponement.attempts)).set("in_sequence", to: SQLLiteral.boolean(false))
                    .set("error_code", to: wait.code).set("error_message", to: wait.message(until: due))
                    .where(SQLDeliveryKeys(chunk)).run()
            }
        }
    }

    /// Splits `deliveries` into those within their users' caps, which are counted, and those past them.
    private static func count(
        _ deliveries: [ClaimedRow], against cap: FrequencyCap, now: Date, in db: any SQLDatabase
    ) async throws -> (allowed: [ClaimedRow], capped: [DeliveryKey]) {
        guard !deliveries.isEmpty else { return ([], []) }
        let owners = Set(deliveries.map(\.owner)).sorted()
        try await lockCounts(of: owners, in: db)
        let nowMs = EpochMilliseconds(now)
        let windowStart = EpochMilliseconds(now - cap.period)
        var counted: [String: Set<Int64>] = [:]
        for chunk in owners.chunked(SQLNotificationRepository.insertChunk) {
            try await db.delete(from: "frequency_counts").where("owner", .in, Array(chunk))
                .where("counted_at", .lessThanOrEqual, windowStart).run()
            let rows = try await db.select().columns("owner", "notification_id").from("frequency_counts")
                .where("owner", .in, Array(chunk)).all()
            for row in rows { counted[try row.string("owner"), default: []].insert(try row.int64("notification_id")) }
        }
        var allowed: [ClaimedRow] = []
        var capped: [DeliveryKey] = []
        var newlyCounted: [(owner: String, notificationId: Int64)] = []
        for delivery in deliveries.sorted(by: { $0.deliveryId < $1.deliveryId }) {
            let reached = counted[delivery.owner, default: []]
            if reached.contains(delivery.notificationId) {
                allowed.append(delivery)
            } else if reached.count < cap.count {
                counted[delivery.owner, default: []].insert(delivery.notificationId)
                newlyCounted.append((delivery.owner, delivery.notificationId))
                allowed.append(delivery)
            } else {
                capped.append(delivery.key)
            }
        }
        for chunk in newlyCounted.chunked(SQLNotificationRepository.insertChunk) {
            try await db.insert(into: "frequency_counts").columns("owner", "notification_id", "counted_at")
                .rows(chunk.map { [SQLBind($0.owner), SQLBind($0.notificationId), SQLBind(nowMs)] }).run()
        }
        return (allowed, capped)
    }

    /// Where several processes claim at once (PostgreSQL), takes a lock per user until the transaction ends, in name
    /// order so two claimers never wait for each other in a circle. It is an advisory lock, not a row lock on the
    /// user: nothing else takes it, so a claim never waits for a registration. SQLite's transactions exclude
    /// each other already.
    private static func lockCounts(of owners: [String], in db: any SQLDatabase) async throws {
        guard skipLockedClause(db) != nil else { return }
        for owner in owners {
            try await db.raw("SELECT pg_advisory_xact_lock(hashtextextended(\(bind: "frequency-cap:" + owner), 0))").run()
        }
    }
}
