public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Claims up to `limit` due deliveries for `lease`: until it runs out no other dispatcher takes them, after it
    /// (the claimer crashed) they are due again. Notifications due by `now` are released into their feeds first, in
    /// the same transaction, so no push precedes its feed entry. Deliveries of expired notifications are marked
    /// expired, and those to installations a hub reported gone fail without being sent.
    ///
    /// For `audiencePlatforms` (a hub that sends a notification once to its whole audience), a claimed delivery
    /// brings every other unclaimed delivery of the same notification and platform along, due or not, so the
    /// audience is never sent to twice.
    ///
    /// Several processes may claim at once on a shared store: rows another claimer holds are skipped, never waited
    /// for (`FOR UPDATE SKIP LOCKED` where the dialect locks rows), and deliveries of a notification that another
    /// process is still releasing wait for its release.
    public func claimDueDeliveries(
        now: Date = .now, limit: Int, lease: TimeInterval, audiencePlatforms: Set<Platform> = []
    ) async throws -> [DeliveryJob] {
        try await engine.transaction { db in
            let nowMs = EpochMilliseconds(now)
            _ = try await Self.releaseDue(now: now, in: db)
            let skipLocked = Self.skipLockedClause(db)
            var dueQuery = Self.claimable(db.select().columns("id").from("deliveries"), nowMs: nowMs)
                .where("due_at", .lessThanOrEqual, nowMs)
            if !audiencePlatforms.isEmpty {
                dueQuery = dueQuery.where("platform", .notIn, audiencePlatforms.map(\.rawValue).sorted())
            }
            var ids = Set(try await dueQuery.skippingLocked(skipLocked).orderBy("due_at").orderBy("id").limit(limit).all().map { try $0.int64("id") })
            if !audiencePlatforms.isEmpty {
                ids.formUnion(try await Self.claimAudiences(platforms: audiencePlatforms, nowMs: nowMs, skipLocked: skipLocked, in: db))
            }
            guard !ids.isEmpty else { return [] }
            var candidates: [DeliveryJob] = []
            for chunk in ids.sorted().chunked(Self.insertChunk) {
                candidates += try await Self.deliveryJobs(ids: Array(chunk), in: db)
            }
            // Only the rows in hand are checked against dead devices and expired notifications: looking through the
            // whole outbox for them on every claim would cost a large fan-out more than sending it.
            let dead = try await Self.deadInstallations(among: Set(candidates.map(\.installationId)), in: db)
            let gone = Set(candidates.filter { dead.contains($0.installationId) }.map(\.deliveryId))
            let expired = Set(candidates.filter { !gone.contains($0.deliveryId) && $0.expiresAt.map { $0 <= now } ?? false }.map(\.deliveryId))
            try await Self.finish(
                gone.sorted(), as: .failed, code: "installation.gone",
                message: "a hub reported the device gone; it is not sent to until it registers again", at: nowMs, in: db)
            try await Self.finish(
                expired.sorted(), as: .expired, code: "notification.expired",
                message: "the notification expired before the device was reached", at: nowMs, in: db)
            let jobs = candidates.filter { !gone.contains($0.deliveryId) && !expired.contains($0.deliveryId) }
            for chunk in jobs.map(\.deliveryId).chunked(Self.insertChunk) {
                try await db.update("deliveries").set("lease_until", to: EpochMilliseconds(now + lease))
                    .set("attempts", to: SQLBinaryExpression(SQLIdentifier("attempts"), .add, SQLLiteral.numeric("1")))
                    .where("id", .in, Array(chunk)).run()
            }
            return jobs.map { job in
                var job = job
                job.attempt += 1
                return job
            }
        }
    }

    private static func deadInstallations(among installations: Set<String>, in db: any SQLDatabase) async throws -> Set<String> {
        var dead: Set<String> = []
        for chunk in installations.sorted().chunked(insertChunk) {
            let rows = try await db.select().column("id").from("installations").where("id", .in, Array(chunk))
                .where("dead_at", .isNot, SQLLiteral.null).all()
            for row in rows { dead.insert(try row.string("id")) }
        }
        return dead
    }

    /// Ends pending deliveries without sending them.
    private static func finish(
        _ ids: [Int64], as state: DeliveryState, code: String, message: String, at nowMs: Int64, in db: any SQLDatabase
    ) async throws {
        for chunk in ids.chunked(insertChunk) {
            try await db.update("deliveries").set("state", to: state.rawValue).set("finished_at", to: nowMs)
                .set("lease_until", to: Int64?.none).set("error_code", to: code).set("error_message", to: message)
                .where("id", .in, Array(chunk)).run()
        }
    }

    /// Pending deliveries that no live lease holds and whose notification has been released.
    private static func claimable(_ query: SQLSelectBuilder, nowMs: Int64) -> SQLSelectBuilder {
        query.where("state", .equal, DeliveryState.pending.rawValue)
            .where { $0.where("lease_until", .is, SQLLiteral.null).orWhere("lease_until", .lessThan, nowMs) }
            .where(
                "notification_id", .notIn,
                SQLSubquery.select { $0.column("id").from("notifications").where("released_at", .is, SQLLiteral.null) })
    }

    /// The claimable deliveries of a few notifications with due deliveries on an audience platform, every one of them.
    ///
    /// The notification's row is locked first, skipping those another claimer holds: one claimer at a time takes a
    /// notification's audience, so two processes never each send it to the same audience.
    private static func claimAudiences(
        platforms: Set<Platform>, nowMs: Int64, skipLocked: (any SQLExpression)?, in db: any SQLDatabase
    ) async throws -> [Int64] {
        let platformNames = platforms.map(\.rawValue).sorted()
        let due = try await claimable(db.select().distinct().columns("notification_id", "platform").from("deliveries"), nowMs: nowMs)
            .where("due_at", .lessThanOrEqual, nowMs).where("platform", .in, platformNames)
            .orderBy("notification_id").limit(10).all()
        var audiences: [Int64: [String]] = [:]
        for row in due { audiences[try row.int64("notification_id"), default: []].append(try row.string("platform")) }
        var ids: [Int64] = []
        for (notificationId, audience) in audiences.sorted(by: { $0.key < $1.key }) {
            let locked = try await db.select().column("id").from("notifications").where("id", .equal, notificationId)
                .skippingLocked(skipLocked).first()
            guard locked != nil else { continue }
            ids += try await claimable(db.select().column("id").from("deliveries"), nowMs: nowMs)
                .where("notification_id", .equal, notificationId).where("platform", .in, audience)
                .skippingLocked(skipLocked).all().map { try $0.int64("id") }
        }
        return ids
    }

    /// `FOR UPDATE SKIP LOCKED` where the dialect locks selected rows; nil where a transaction excludes all others
    /// anyway (SQLite).
    static func skipLockedClause(_ db: any SQLDatabase) -> (any SQLExpression)? {
        db.dialect.exclusiveSelectLockExpression.map { SQLList([$0, SQLRaw("SKIP LOCKED")], separator: SQLRaw(" ")) }
    }

    /// The claimed deliveries with what their hubs need of the notification.
    private static func deliveryJobs(ids: [Int64], in db: any SQLDatabase) async throws -> [DeliveryJob] {
        let rows = try await db.select()
            .columns(
                SQLColumn("id", table: "d"), SQLColumn("attempts", table: "d"), SQLColumn("notification_id", table: "d"),
                SQLColumn("installation_id", table: "d"), SQLColumn("owner", table: "d"), SQLColumn("platform", table: "d"),
                SQLColumn("push_channel", table: "d"), SQLColumn("message", table: "n"), SQLColumn("rich_type", table: "n"),
                SQLColumn("push_style", table: "n"), SQLColumn("audience", table: "n"), SQLColumn("expires_at", table: "n")
            )
            .from(SQLAlias(SQLIdentifier("deliveries"), as: SQLIdentifier("d")))
            .join(
                SQLAlias(SQLIdentifier("notifications"), as: SQLIdentifier("n")), method: SQLJoinMethod.inner,
                on: SQLColumn("id", table: "n"), .equal, SQLColumn("notification_id", table: "d")
            )
            .where(SQLColumn("id", table: "d"), .in, SQLBind.group(ids))
            .orderBy(SQLColumn("id", table: "d")).all()
        return try rows.map { row in
            DeliveryJob(
                deliveryId: try row.int64("id"), attempt: try row.int("attempts"), notificationId: try row.int64("notification_id"),
                message: try row.string("message"), richType: try row.enumeration("rich_type", as: RichType.self),
                pushStyle: try row.enumeration("push_style", as: PushStyle.self), audience: try row.string("audience"),
                expiresAt: try row.optionalDate("expires_at"), installationId: try row.string("installation_id"),
                owner: try row.string("owner"), platform: try row.enumeration("platform", as: Platform.self),
                pushChannel: try row.string("push_channel"))
        }
    }

    /// Records what the hubs answered. A retry makes the delivery due again after its delay; a gone device fails
    /// and its installation is never sent to again until it registers anew.
    public func recordOutcomes(_ results: [(job: DeliveryJob, outcome: DeliveryOutcome)], now: Date = .now) async throws {
        guard !results.isEmpty else { return }
        let nowMs = EpochMilliseconds(now)
        try await engine.transaction { db in
            let sent = results.filter { $0.outcome == .sent }.map(\.job.deliveryId)
            for chunk in sent.chunked(Self.insertChunk) {
                try await db.update("deliveries").set("state", to: DeliveryState.sent.rawValue).set("finished_at", to: nowMs)
                    .set("lease_until", to: Int64?.none).where("id", .in, Array(chunk)).run()
            }
            for (job, outcome) in results {
                switch outcome {
                case .sent:
                    continue
                case .retry(let after, let code, let message):
                    try await db.update("deliveries").set("due_at", to: EpochMilliseconds(now + after))
                        .set("lease_until", to: Int64?.none).set("error_code", to: code).set("error_message", to: message)
                        .where("id", .equal, job.deliveryId).run()
                case .failed(let code, let message), .deviceGone(let code, let message):
                    try await db.update("deliveries").set("state", to: DeliveryState.failed.rawValue).set("finished_at", to: nowMs)
                        .set("lease_until", to: Int64?.none).set("error_code", to: code).set("error_message", to: message)
                        .where("id", .equal, job.deliveryId).run()
                    if case .deviceGone = outcome {
                        try await db.update("installations").set("dead_at", to: nowMs).set("dead_reason", to: code)
                            .where("id", .equal, job.installationId).where("dead_at", .is, SQLLiteral.null).run()
                    }
                }
            }
        }
    }

    /// When the next pending delivery falls due, so an idle dispatcher sleeps exactly that long.
    public func nextDeliveryDue() async throws -> Date? {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MIN", args: SQLIdentifier("due_at")), as: "due").from("deliveries")
                .where("state", .equal, DeliveryState.pending.rawValue).first()?.optionalDate("due")
        }
    }

    /// Delivery counts, user states and failures of one notification.
    public func counts(notificationId id: Int64) async throws -> NotificationCounts {
        try await engine.read { db in
            var tally = DeliveryTally()
            let byState = try await db.select().column("state").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
                .from("deliveries").where("notification_id", .equal, id).groupBy("state").all()
            for row in byState {
                let count = try row.int("n")
                switch DeliveryState(rawValue: try row.string("state")) {
                case .pending: tally.pending = count
                case .sent: tally.sent = count
                case .failed: tally.failed = count
                case .expired: tally.expired = count
                case .canceled: tally.canceled = count
                case nil: break
                }
            }
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
                .from("deliveries").where("notification_id", .equal, id)
                .where("state", .in, [DeliveryState.failed.rawValue, DeliveryState.expired.rawValue])
                .orderBy("id").limit(100).all()
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

    /// Keeps claimed deliveries that are still being sent to their claimer for another `lease`, so a batch that
    /// takes longer than the lease is not claimed and sent a second time by another process.
    public func extendLease(of deliveryIds: [Int64], by lease: TimeInterval, now: Date = .now) async throws {
        try await engine.transaction { db in
            for chunk in deliveryIds.chunked(Self.insertChunk) {
                try await db.update("deliveries").set("lease_until", to: EpochMilliseconds(now + lease))
                    .where("id", .in, Array(chunk)).where("state", .equal, DeliveryState.pending.rawValue)
                    .where("lease_until", .isNot, SQLLiteral.null).run()
            }
        }
    }

    func releaseAllClaims() async throws {
        try await engine.transaction { db in
            try await db.update("deliveries").set("lease_until", to: Int64?.none)
                .where("state", .equal, DeliveryState.pending.rawValue).where("lease_until", .isNot, SQLLiteral.null).run()
        }
    }
}

extension SQLSubqueryClauseBuilder {
    /// Adds `clause` (from ``Store/skipLockedClause(_:)``) when there is one.
    func skippingLocked(_ clause: (any SQLExpression)?) -> Self {
        clause.map { lockingClause($0) } ?? self
    }
}
