public import Foundation
public import RichPushCore
import SQLKit

extension SQLOutbox {
    /// The batch of claimed deliveries, in id order, with their notifications and the unread counts their badges
    /// show. Those of expired notifications are
    /// marked expired, and those to installations a hub reported gone fail, without being sent; a campaign's delivery
    /// rate and `limits` hold deliveries back, and the claimer lets go of those they hold back (`letGo`). Deliveries on
    /// `audiencePlatforms` go as their hub's one send to the whole audience: no pace can spread that.
    static func batch(
        of claimed: [ClaimedRow], now: Date, limits: CampaignLimits, audiencePlatforms: Set<Platform>, letGo: ([Int64]) -> Void,
        in db: any SQLDatabase
    ) async throws -> ClaimedBatch {
        guard !claimed.isEmpty else { return ClaimedBatch(limitsActive: limits.isActive) }
        let nowMs = EpochMilliseconds(now)
        let notifications = try await Self.claimedNotifications(Set(claimed.map(\.notificationId)), in: db)
        var live: [ClaimedRow] = []
        var gone: [DeliveryKey] = []
        var expired: [DeliveryKey] = []
        live.reserveCapacity(claimed.count)
        for delivery in claimed {
            guard let notification = notifications[delivery.notificationId] else { continue }
            if delivery.deviceGone {
                gone.append(delivery.key)
            } else if let expiresAt = notification.expiresAt, expiresAt <= now {
                expired.append(delivery.key)
            } else {
                live.append(delivery)
            }
        }
        // Only the rows in hand are checked against dead devices and expired notifications: looking through the
        // whole outbox for them on every claim would cost a large fan-out more than sending it.
        try await Self.finish(
            gone, as: .failed, code: "installation.gone",
            message: "a hub reported the device gone; it is not sent to until it registers again", at: nowMs, in: db)
        try await Self.finish(
            expired, as: .expired, code: "notification.expired",
            message: "the notification expired before the device was reached", at: nowMs, in: db)
        let marketing = Set(notifications.filter { $0.value.purpose == .marketing }.keys)
        // Paced first: a delivery whose turn is later is not counted against its user's cap until it goes.
        live = try await Self.pacing(
            live, rates: notifications.compactMapValues(\.deliveryRate), audiencePlatforms: audiencePlatforms, now: now, letGo: letGo, in: db)
        live = try await Self.applying(limits, to: live, marketing: marketing, now: now, letGo: letGo, in: db)
        var batch = ClaimedBatch(
            deliveries: live.sorted { $0.deliveryId < $1.deliveryId }.map(\.delivery), notifications: notifications,
            limitsActive: limits.isActive)
        let badgeOwners = batch.ownersShowingUnreadCount
        if !badgeOwners.isEmpty { batch.unreadCounts = try await SQLFeedRepository.unreadCounts(of: badgeOwners, now: now, in: db) }
        return batch
    }

    /// What a claim reads of a delivery row: the delivery, with where it stands in the pending index, why it waited
    /// (a hub's retry, quiet hours, its campaign's pace), whether a hub reported its installation gone and, where
    /// quiet hours need it, the installation's zone.
    ///
    /// Its delivery's fields are forwarded one by one: a dynamic member lookup through key paths was not specialized
    /// away, and each look built and projected a key path at run time.
    struct ClaimedRow: DeliveryAttempt {
        var delivery: ClaimedDelivery
        var dueAt: Int64
        var waitedFor: String?
        var deviceGone: Bool
        var timeZone: String?

        var deliveryId: Int64 { delivery.deliveryId }
        var notificationId: Int64 { delivery.notificationId }
        var attempt: Int { delivery.attempt }
        var installationId: String { delivery.installationId }
        var owner: String { delivery.owner }
        var platform: Platform { delivery.platform }
    }

    /// Takes the pending deliveries `predicate` selects and reads them, each with the attempt this claim makes. With
    /// `leasingUntil`, one statement writes that lease into their rows, counts the attempt and reads them back;
    /// otherwise they are only read, and the attempt is counted when its outcome is recorded.
    static func take(
        _ predicate: any SQLExpression, leasingUntil leaseUntil: Int64?, withZones: Bool, in db: any SQLDatabase
    ) async throws -> [ClaimedRow] {
        func installation(_ column: String, onlyDead: Bool = false) -> any SQLExpression {
            let value = SQLSubquery.select {
                let installation = $0.column(column).from("installations")
                    .where(SQLColumn("id", table: "installations"), .equal, SQLColumn("installation_id", table: "deliveries"))
                return onlyDead ? installation.where("dead_at", .isNot, SQLLiteral.null) : installation
            }
            return SQLAlias(value, as: SQLIdentifier(column))
        }
        // Only the dead installations are looked in, through their own small index: most claimed devices are alive,
        // and finding that in the whole table cost a claim 1.4 µs a delivery on PostgreSQL.
        var columns: [any SQLExpression] = [
            SQLColumn("id"), SQLColumn("due_at"), SQLColumn("error_code"), SQLColumn("attempts"), SQLColumn("notification_id"),
            SQLColumn("installation_id"),
            SQLColumn("owner"),
            SQLColumn("platform"), SQLColumn("push_channel"), SQLColumn("language"), SQLColumn("variant"),
            installation("dead_at", onlyDead: true),
        ]
        if withZones { columns.append(installation("time_zone")) }
        let rows =
            if let leaseUntil {
                try await db.update("deliveries").set("lease_until", to: leaseUntil)
                    .set("attempts", to: Self.oneMoreAttempt)
                    .where(predicate).returning(columns).all()
            } else {
                try await db.select().columns(columns).from("deliveries").where(predicate).all()
            }
        let attemptsBefore = leaseUntil == nil ? 1 : 0
        return try rows.map { row in
            ClaimedRow(
                delivery: ClaimedDelivery(
                    deliveryId: try row.int64("id"), attempt: try row.int("attempts") + attemptsBefore,
                    notificationId: try row.int64("notification_id"), installationId: try row.string("installation_id"),
                    owner: try row.string("owner"), platform: try row.enumeration("platform", as: Platform.self),
                    pushChannel: try row.string("push_channel"), language: try row.optionalString("language"),
                    variant: try row.optionalString("variant")),
                dueAt: try row.int64("due_at"), waitedFor: try row.optionalString("error_code"),
                deviceGone: !(try row.decodeNil(column: "dead_at")),
                timeZone: withZones ? try row.optionalString("time_zone") : nil)
        }
    }

    /// `attempts + 1`, for the statements that count a claim's attempt.
    static var oneMoreAttempt: some SQLExpression {
        SQLBinaryExpression(SQLIdentifier("attempts"), .add, SQLLiteral.numeric("1"))
    }

    static func claimedNotifications(_ ids: Set<Int64>, in db: any SQLDatabase) async throws -> [Int64: ClaimedNotification] {
        var notifications: [Int64: ClaimedNotification] = [:]
        for chunk in ids.sorted().chunked(SQLNotificationRepository.insertChunk) {
            let rows = try await db.select().columns(
                "id", "message", "rich_type", "push_style", "audience", "expires_at", "content", "purpose", "variants", "delivery_rate"
            )
            .from("notifications").where(SQLIdSet("id", in: chunk)).all()
            for row in rows {
                notifications[try row.int64("id")] = ClaimedNotification(
                    message: try row.string("message"), richType: try row.enumeration("rich_type", as: RichType.self),
                    pushStyle: try row.enumeration("push_style", as: PushStyle.self), audience: try row.string("audience"),
                    expiresAt: try row.optionalDate("expires_at"), content: try SQLNotificationRepository.content(row.optionalString("content")),
                    purpose: try row.enumeration("purpose", as: NotificationPurpose.self),
                    variants: try SQLNotificationRepository.variants(row.optionalString("variants")),
                    deliveryRate: try row.decode(column: "delivery_rate", as: Int64?.self).map { Int($0) })
            }
        }
        return notifications
    }

    /// Ends pending deliveries without sending them; a notification whose last ones they were has completed.
    static func finish(
        _ deliveries: [DeliveryKey], as state: DeliveryState, code: String, message: String, at nowMs: Int64,
        in db: any SQLDatabase
    ) async throws {
        for chunk in deliveries.chunked(SQLNotificationRepository.insertChunk) {
            try await finishPending(
                db.update("deliveries").set("finished_at", to: nowMs).set("lease_until", to: Int64?.none).set("error_code", to: code)
                    .set("error_message", to: message).where(SQLDeliveryKeys(chunk)), as: state, in: db)
        }
        guard !deliveries.isEmpty else { return }
        try await WebhookSubscribers.read(in: db).enqueueCompletions(
            of: deliveries.map(\.notificationId), now: dateFromMilliseconds(nowMs), in: db)
    }

    /// `unclaimed` (nil for every delivery) narrowed to deliveries of notifications not in `heldBack`, and, of those
    /// `pacedAhead`, to the deliveries that have their turn already.
    static func unclaimed(_ unclaimed: (any SQLExpression)?, heldBack: Set<Int64>, pacedAhead: Set<Int64>) -> (any SQLExpression)? {
        var terms = unclaimed.map { [$0] } ?? []
        if !heldBack.isEmpty { terms.append(SQLQueryString("NOT \(SQLIdSet("notification_id", in: heldBack))")) }
        if !pacedAhead.isEmpty {
            terms.append(
                SQLQueryString(
                    "NOT (\(SQLIdSet("notification_id", in: pacedAhead)) AND COALESCE(error_code, '') <> \(literal: Wait.pace.code))"))
        }
        guard let first = terms.first else { return nil }
        return terms.dropFirst().reduce(first) { SQLBinaryExpression($0, .and, $1) }
    }

    /// Pending deliveries that no other claim holds (`unclaimed`, nil where none does) and whose notification has been
    /// released.
    static func claimable<Query: SQLPredicateBuilder>(_ query: Query, unclaimed: (any SQLExpression)?) -> Query {
        _ = query.where(DeliveryState.isPending)
        if let unclaimed { _ = query.where(unclaimed) }
        return query.where(
            "notification_id", .notIn,
            SQLSubquery.select { $0.column("id").from("notifications").where("released_at", .is, SQLLiteral.null) })
    }

    /// The due deliveries a claim takes through the pending index, at most `limit`, in `(due_at, id)` order within
    /// `range`: those no other claim holds (`unclaimed`), out of their notification's sequence and on no platform
    /// whose hub sends to whole audiences. `skipLocked` leaves rows another transaction locked.
    static func due(
        unclaimed: (any SQLExpression)?, nowMs: Int64, in range: ClaimCursor.Range, audiencePlatforms: Set<Platform>, limit: Int,
        skipLocked: (any SQLExpression)? = nil
    ) -> SQLSubqueryBuilder {
        let due = SQLSubqueryBuilder()
        _ = claimable(due.from("deliveries"), unclaimed: unclaimed).where(Self.outOfSequence)
        switch range {
        case .whole:
            _ = due.where("due_at", .lessThanOrEqual, nowMs)
        case .after(let start):
            _ = due.where("due_at", .lessThanOrEqual, nowMs).where(SQLQueryString("(due_at, id) > (\(bind: start.dueAt), \(bind: start.id))"))
        case .sameInstantAfter(let start):
            _ = due.where("due_at", .equal, start.dueAt).where("id", .greaterThan, start.id)
        case .laterInstants(let start):
            _ = due.where("due_at", .greaterThan, start.dueAt).where("due_at", .lessThanOrEqual, nowMs)
        }
        if !audiencePlatforms.isEmpty {
            _ = due.where("platform", .notIn, audiencePlatforms.map(\.rawValue).sorted())
        }
        return due.orderBy("due_at").orderBy("id").limit(limit).skippingLocked(skipLocked)
    }

    /// Takes, with `take`, the claimable deliveries of a few notifications with due deliveries on `platforms`, whose
    /// hubs send to whole audiences: every one of them, due or not, so the audience is never sent to twice.
    static func takeAudiences(
        on platforms: Set<Platform>, nowMs: Int64, unclaimed: (any SQLExpression)?, skipLocked: (any SQLExpression)?,
        in db: any SQLDatabase, take: (any SQLExpression) async throws -> [ClaimedRow]
    ) async throws -> [ClaimedRow] {
        guard !platforms.isEmpty else { return [] }
        let audiences = try await claimAudiences(platforms: platforms, nowMs: nowMs, unclaimed: unclaimed, skipLocked: skipLocked, in: db)
        var claimed: [ClaimedRow] = []
        for chunk in audiences.chunked(SQLNotificationRepository.insertChunk) {
            claimed += try await take(SQLDeliveryKeys(chunk))
        }
        return claimed
    }

    /// The claimable deliveries of a few notifications with due deliveries on an audience platform, every one of them.
    ///
    /// The notification's row is locked first, skipping those another claimer holds: one claimer at a time takes a
    /// notification's audience, so two processes never each send it to the same audience.
    private static func claimAudiences(
        platforms: Set<Platform>, nowMs: Int64, unclaimed: (any SQLExpression)?, skipLocked: (any SQLExpression)?, in db: any SQLDatabase
    ) async throws -> [DeliveryKey] {
        let platformNames = platforms.map(\.rawValue).sorted()
        let due = try await claimable(
            db.select().distinct().columns("notification_id", "platform").from("deliveries"), unclaimed: unclaimed
        )
        .where(Self.outOfSequence).where("due_at", .lessThanOrEqual, nowMs).where("platform", .in, platformNames)
        // An audience is sent to once, whole: not while its outbox is still being written.
        .where(
            "notification_id", .notIn,
            SQLSubquery.select { $0.column("id").from("notifications").where("outbox_through", .isNot, SQLLiteral.null) }
        )
        .orderBy("notification_id").limit(10).all()
        var audiences: [Int64: [String]] = [:]
        for row in due { audiences[try row.int64("notification_id"), default: []].append(try row.string("platform")) }
        var deliveries: [DeliveryKey] = []
        for (notificationId, audience) in audiences.sorted(by: { $0.key < $1.key }) {
            let locked = try await db.select().column("id").from("notifications").where("id", .equal, notificationId)
                .skippingLocked(skipLocked).first()
            guard locked != nil else { continue }
            // Waiting for rows another claim holds, rather than leaving them: one that found them in its notification's
            // sequence is giving them to the pending index, and this claim takes the audience whole.
            var whole = claimable(db.select().column("id").from("deliveries"), unclaimed: unclaimed)
                .where("notification_id", .equal, notificationId).where("platform", .in, audience)
            if let lock = db.dialect.exclusiveSelectLockExpression { whole = whole.lockingClause(lock) }
            deliveries += try await whole.all().map { (notificationId, try $0.int64("id")) }
        }
        return deliveries
    }

    /// When the next pending delivery that no lease in its row holds, and that is out of its sequence, falls due.
    static func nextIndexedDeliveryDue(at nowMs: Int64, in db: any SQLDatabase) async throws -> Date? {
        try await db.select().column("due_at").from("deliveries").where(DeliveryState.isPending)
            .where(Self.outOfSequence).where(unleased(at: nowMs)).orderBy("due_at").limit(1).first()?.optionalDate("due_at")
    }

    /// Deliveries no lease in their row holds at `nowMs`: never leased, or leased until before it.
    static func unleased(at nowMs: Int64) -> any SQLExpression {
        SQLGroupExpression(
            SQLBinaryExpression(
                SQLBinaryExpression(SQLIdentifier("lease_until"), .is, SQLLiteral.null), .or,
                SQLBinaryExpression(SQLIdentifier("lease_until"), .lessThan, SQLBind(nowMs))))
    }

    /// `FOR UPDATE SKIP LOCKED` where the dialect locks selected rows; nil where a transaction excludes all others
    /// anyway (SQLite).
    static func skipLockedClause(_ db: any SQLDatabase) -> (any SQLExpression)? {
        db.dialect.exclusiveSelectLockExpression.map { SQLList([$0, SQLRaw("SKIP LOCKED")], separator: SQLRaw(" ")) }
    }
}

extension SQLSubqueryClauseBuilder {
    /// Adds `clause` (from ``SQLOutbox/skipLockedClause(_:)``) when there is one.
    func skippingLocked(_ clause: (any SQLExpression)?) -> Self {
        clause.map { lockingClause($0) } ?? self
    }
}
