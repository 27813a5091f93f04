public import Foundation
public import RichPushCore
import SQLKit

extension SQLOutbox {
    /// The jobs of claimed deliveries. Those of expired notifications are marked expired, and those to installations
    /// a hub reported gone fail, without being sent; `limits` hold marketers' notifications back.
    static func jobs(
        of claimed: [ClaimedDelivery], now: Date, limits: CampaignLimits, held: HeldDeliveries?, in db: any SQLDatabase
    ) async throws -> [DeliveryJob] {
        guard !claimed.isEmpty else { return [] }
        let nowMs = EpochMilliseconds(now)
        let notifications = try await Self.claimedNotifications(Set(claimed.map(\.notificationId)), in: db)
        var live: [ClaimedDelivery] = []
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
        live = try await Self.applying(limits, to: live, marketing: marketing, now: now, held: held, in: db)

        let badgeOwners = Set(
            live.filter { delivery in
                notifications[delivery.notificationId].map { $0.shown(in: delivery.variant).content.badge == .unread } ?? false
            }
            .map(\.owner))
        let unread = badgeOwners.isEmpty ? [:] : try await SQLFeedRepository.unreadCounts(of: badgeOwners.sorted(), now: now, in: db)
        // A notification's devices share a few pushes, one per language and badge: each is built once.
        var pushes: [PushKey: (push: SilentPush, language: String?)] = [:]
        var jobs: [DeliveryJob] = []
        jobs.reserveCapacity(live.count)
        for delivery in live.sorted(by: { $0.deliveryId < $1.deliveryId }) {
            guard let notification = notifications[delivery.notificationId] else { continue }
            let unreadCount = unread[delivery.owner]
            let key = PushKey(
                notificationId: delivery.notificationId, variant: delivery.variant, language: delivery.language, unreadCount: unreadCount)
            let (push, language) =
                pushes[key]
                ?? {
                    let shown = notification.shown(in: delivery.variant)
                    let variant = shown.content.localization(forInstallationLanguage: delivery.language)
                    let built = SilentPush(
                        richId: delivery.notificationId, richType: notification.richType, message: shown.message,
                        style: notification.pushStyle, content: shown.content, localization: variant?.localization,
                        unreadCount: unreadCount)
                    pushes[key] = (built, variant?.tag)
                    return (built, variant?.tag)
                }()
            // A hub that sends to a whole audience at once cannot leave out the devices the limits hold back.
            let heldBackPerDevice = limits.isActive && notification.purpose == .marketing
            jobs.append(
                DeliveryJob(
                    deliveryId: delivery.deliveryId, attempt: delivery.attempt, notificationId: delivery.notificationId, push: push,
                    audience: notification.audience, expiresAt: notification.expiresAt, installationId: delivery.installationId,
                    owner: delivery.owner, platform: delivery.platform, pushChannel: delivery.pushChannel, language: language,
                    variant: delivery.variant,
                    variesByDevice: notification.content.variesByDevice || !notification.variants.isEmpty || heldBackPerDevice))
        }
        return jobs
    }

    /// What makes two devices' pushes of one notification differ: the owner's variant and badge, the installation's
    /// language.
    struct PushKey: Hashable {
        var notificationId: Int64
        var variant: String?
        var language: String?
        var unreadCount: Int?
    }

    /// What a claim reads of a delivery row, with whether a hub reported its installation gone and, where quiet hours
    /// need it, the installation's zone.
    struct ClaimedDelivery {
        var deliveryId: Int64
        var dueAt: Int64
        var attempt: Int
        var notificationId: Int64
        var installationId: String
        var owner: String
        var platform: Platform
        var pushChannel: String
        var language: String?
        var deviceGone: Bool
        var timeZone: String?
        var variant: String?
    }

    /// What the hubs need of a claimed notification: read once per notification, not once per delivery.
    struct ClaimedNotification {
        var message: String
        var richType: RichType
        var pushStyle: PushStyle
        var audience: String
        var expiresAt: Date?
        var content: PushContent
        var purpose: NotificationPurpose
        var variants: [Variant]

        /// The message and content the users of `variant` see.
        func shown(in variant: String?) -> (message: String, content: PushContent) {
            guard let variant, let chosen = variants.first(where: { $0.name == variant }) else { return (message, content) }
            return (chosen.message, chosen.content)
        }
    }

    /// Takes the pending deliveries `predicate` selects until `leaseUntil` and reads them, each with the attempt this
    /// claim makes. `leasing` them, one statement writes the lease into their rows, counts the attempt and reads them
    /// back; otherwise they are only read, `held` holds them in memory where given, and the attempt is counted when
    /// its outcome is recorded.
    static func take(
        _ predicate: any SQLExpression, until leaseUntil: Int64, leasing: Bool, holding held: HeldDeliveries?, withZones: Bool,
        in db: any SQLDatabase
    ) async throws -> [ClaimedDelivery] {
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
            SQLColumn("id"), SQLColumn("due_at"), SQLColumn("attempts"), SQLColumn("notification_id"), SQLColumn("installation_id"),
            SQLColumn("owner"),
            SQLColumn("platform"), SQLColumn("push_channel"), SQLColumn("language"), SQLColumn("variant"),
            installation("dead_at", onlyDead: true),
        ]
        if withZones { columns.append(installation("time_zone")) }
        let rows =
            if leasing {
                try await db.update("deliveries").set("lease_until", to: leaseUntil)
                    .set("attempts", to: Self.oneMoreAttempt)
                    .where(predicate).returning(columns).all()
            } else {
                try await db.select().columns(columns).from("deliveries").where(predicate).all()
            }
        let attemptsBefore = leasing ? 0 : 1
        let claimed = try rows.map { row in
            ClaimedDelivery(
                deliveryId: try row.int64("id"), dueAt: try row.int64("due_at"), attempt: try row.int("attempts") + attemptsBefore,
                notificationId: try row.int64("notification_id"), installationId: try row.string("installation_id"),
                owner: try row.string("owner"), platform: try row.enumeration("platform", as: Platform.self),
                pushChannel: try row.string("push_channel"), language: try row.optionalString("language"),
                deviceGone: !(try row.decodeNil(column: "dead_at")), timeZone: withZones ? try row.optionalString("time_zone") : nil,
                variant: try row.optionalString("variant"))
        }
        held?.hold(claimed.map(\.deliveryId), until: leaseUntil)
        return claimed
    }

    /// Runs `body`, a claim of due deliveries, planned to read them in order from `deliveries_pending_due`.
    ///
    /// PostgreSQL plans from statistics its autovacuum gathers up to a minute after a campaign's outbox is written:
    /// believing the outbox small, it planned each claim as a sort of every pending delivery, which took a
    /// 100,000-device fan-out's database 25 µs a push, and each claim longer as the outbox grew. Without the sort, the
    /// only plan left reads the index in order and stops at the claim's limit. SQLite plans it so already.
    static func inIndexOrder<T>(in db: any SQLDatabase, _ body: () async throws -> T) async throws -> T {
        guard db.dialect.name != "sqlite" else { return try await body() }
        try await db.raw("SET LOCAL enable_sort = off").run()
        let result = try await body()
        try await db.raw("SET LOCAL enable_sort TO DEFAULT").run()
        return result
    }

    /// The rows `subquery` selects: `id IN (subquery)`, written for PostgreSQL as `ctid = ANY(ARRAY(subquery))`.
    /// PostgreSQL plans an `UPDATE … WHERE id IN (subquery)` as a hash join over a scan of the whole table, so each
    /// claim read every delivery ever written (25 ms a claim of 1,000 among 100,000, growing with the table), where
    /// the array has it take the subquery's rows first and then each one where it lies, without looking it up in an
    /// index. The subquery locks the rows, so none moves before the update reaches it; a row another claimer updated
    /// since the statement began is left for a later claim.
    static func rows(of subquery: SQLSubqueryBuilder, in db: any SQLDatabase) -> any SQLExpression {
        guard db.dialect.name != "sqlite" else { return SQLBinaryExpression(SQLIdentifier("id"), .in, subquery.column("id").query) }
        let rows = SQLFunction("ANY", args: SQLFunction("ARRAY", args: subquery.column("ctid").query))
        return SQLBinaryExpression(SQLIdentifier("ctid"), .equal, rows)
    }

    /// `attempts + 1`, for the statements that count a claim's attempt.
    static var oneMoreAttempt: some SQLExpression {
        SQLBinaryExpression(SQLIdentifier("attempts"), .add, SQLLiteral.numeric("1"))
    }

    /// The deliveries `held` holds at `nowMs`, nil where leases are in the rows. Holds that ran out count the attempt
    /// their claim made, as a lease running out in the rows does.
    static func heldIds(_ held: HeldDeliveries?, at nowMs: Int64, in db: any SQLDatabase) async throws -> [Int64]? {
        guard let held else { return nil }
        let (ids, lapsed) = held.held(at: nowMs)
        for chunk in lapsed.chunked(SQLNotificationRepository.insertChunk) {
            try await db.update("deliveries")
                .set("attempts", to: Self.oneMoreAttempt)
                .where(SQLIdSet("id", in: chunk)).where(DeliveryState.isPending).run()
        }
        return ids
    }

    static func claimedNotifications(_ ids: Set<Int64>, in db: any SQLDatabase) async throws -> [Int64: ClaimedNotification] {
        var notifications: [Int64: ClaimedNotification] = [:]
        for chunk in ids.sorted().chunked(SQLNotificationRepository.insertChunk) {
            let rows = try await db.select().columns(
                "id", "message", "rich_type", "push_style", "audience", "expires_at", "content", "purpose", "variants"
            )
            .from("notifications").where(SQLIdSet("id", in: chunk)).all()
            for row in rows {
                notifications[try row.int64("id")] = ClaimedNotification(
                    message: try row.string("message"), richType: try row.enumeration("rich_type", as: RichType.self),
                    pushStyle: try row.enumeration("push_style", as: PushStyle.self), audience: try row.string("audience"),
                    expiresAt: try row.optionalDate("expires_at"), content: try SQLNotificationRepository.content(row.optionalString("content")),
                    purpose: try row.enumeration("purpose", as: NotificationPurpose.self),
                    variants: try SQLNotificationRepository.variants(row.optionalString("variants")))
            }
        }
        return notifications
    }

    /// Ends pending deliveries without sending them.
    static func finish(
        _ deliveries: [DeliveryKey], as state: DeliveryState, code: String, message: String, at nowMs: Int64,
        in db: any SQLDatabase
    ) async throws {
        for chunk in deliveries.chunked(SQLNotificationRepository.insertChunk) {
            try await finishPending(
                db.update("deliveries").set("finished_at", to: nowMs).set("lease_until", to: Int64?.none).set("error_code", to: code)
                    .set("error_message", to: message).where(SQLDeliveryKeys(chunk)), as: state, in: db)
        }
    }

    /// Pending deliveries that no live lease holds and whose notification has been released: `excluded` are the
    /// deliveries held in memory, nil where leases are in the rows.
    static func claimable<Query: SQLPredicateBuilder>(_ query: Query, nowMs: Int64, excluding excluded: [Int64]?) -> Query {
        _ = query.where(DeliveryState.isPending)
        if let excluded {
            if !excluded.isEmpty { _ = query.where(SQLQueryString("NOT \(SQLIdSet("id", in: excluded))")) }
        } else {
            _ = query.unleased(at: nowMs)
        }
        return query.where(
            "notification_id", .notIn,
            SQLSubquery.select { $0.column("id").from("notifications").where("released_at", .is, SQLLiteral.null) })
    }

    /// The claimable deliveries of a few notifications with due deliveries on an audience platform, every one of them.
    ///
    /// The notification's row is locked first, skipping those another claimer holds: one claimer at a time takes a
    /// notification's audience, so two processes never each send it to the same audience.
    static func claimAudiences(
        platforms: Set<Platform>, nowMs: Int64, excluding excluded: [Int64]?, skipLocked: (any SQLExpression)?, in db: any SQLDatabase
    ) async throws -> [DeliveryKey] {
        let platformNames = platforms.map(\.rawValue).sorted()
        let due = try await claimable(
            db.select().distinct().columns("notification_id", "platform").from("deliveries"), nowMs: nowMs, excluding: excluded
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
            var whole = claimable(db.select().column("id").from("deliveries"), nowMs: nowMs, excluding: excluded)
                .where("notification_id", .equal, notificationId).where("platform", .in, audience)
            if let lock = db.dialect.exclusiveSelectLockExpression { whole = whole.lockingClause(lock) }
            deliveries += try await whole.all().map { (notificationId, try $0.int64("id")) }
        }
        return deliveries
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
