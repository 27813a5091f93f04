public import Foundation
public import RichPushCore
import SQLKit

/// Live Activities in `live_activities`, `activity_start_tokens`, `activity_update_tokens` and `activity_deliveries`.
///
/// A device's row holds the event its next push carries and the version of the activity's state it was last sent:
/// an update while a push is pending only raises the version it wants, so a device that has not taken the previous
/// state gets the latest alone.
public struct SQLActivityRepository: ActivityRepository {
    let engine: any DatabaseEngine

    /// A push the hub asked to retry goes again at most so many times.
    static let maximumAttempts = 8

    public func setPushToStartToken(_ token: String, of installationId: String, now: Date = .now) async throws {
        try await engine.transaction { db in
            try await db.insert(into: "activity_start_tokens").columns("installation_id", "token", "updated_at")
                .values(installationId, token, EpochMilliseconds(now))
                .onConflict(with: ["installation_id"]) { try $0.set(excludedValueOf: "token").set(excludedValueOf: "updated_at") }.run()
        }
    }

    public func setUpdateToken(_ token: String, of installationId: String, activity activityId: Int64, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            guard try await db.select().column("id").from("live_activities").where("id", .equal, activityId).first() != nil else {
                return false
            }
            try await db.insert(into: "activity_update_tokens").columns("activity_id", "installation_id", "token", "updated_at")
                .values(activityId, installationId, token, EpochMilliseconds(now))
                .onConflict(with: ["activity_id", "installation_id"]) { try $0.set(excludedValueOf: "token").set(excludedValueOf: "updated_at") }
                .run()
            return true
        }
    }

    public func start(_ activity: ActivityRecord, audience: TagExpression, audit: (Int64) -> AuditEntry? = { _ in nil }, now: Date = .now)
        async throws -> ActivityRecord
    {
        try await engine.transaction { db in
            let nowMs = EpochMilliseconds(now)
            let alert = try Self.text(of: activity.alert)
            let id = try await db.insert(into: "live_activities")
                .columns(
                    "audience", "attributes_type", "attributes", "content_state", "alert", "start_alert", "stale_date", "relevance_score",
                    "created_by", "created_at", "updated_at", "version"
                )
                .values(
                    activity.audience, activity.attributesType, activity.attributes, activity.contentState, alert, alert,
                    activity.staleDate.map(EpochMilliseconds), activity.relevanceScore, activity.createdBy, nowMs, nowMs, 1
                )
                .returning("id").first()!.int64("id")
            try await db.insert(into: "activity_deliveries")
                .columns("activity_id", "installation_id", "owner", "event", "version", "sent_version", "state", "attempts", "due_at")
                .select { select in
                    SQLAudience.addressed(
                        by: audience,
                        select.column(SQLBind(id)).column(SQLColumn("id", table: "i")).column(SQLColumn("owner", table: "i"))
                            .column(SQLBind(LiveActivityEvent.start.rawValue)).column(SQLLiteral.numeric("1"))
                            .column(SQLLiteral.numeric("0")).column(SQLBind(DeliveryState.pending.rawValue))
                            .column(SQLLiteral.numeric("0")).column(SQLBind(nowMs))
                    )
                    .where(SQLColumn("platform", table: "i"), .equal, SQLBind(Platform.apns.rawValue))
                }
                .run()
            try await db.update("activity_deliveries").set("state", to: DeliveryState.failed.rawValue)
                .set("error_code", to: "activity.noPushToStartToken").set("finished_at", to: nowMs)
                .where("activity_id", .equal, id)
                .where("installation_id", .notIn, SQLSubquery.select { $0.column("installation_id").from("activity_start_tokens") })
                .run()
            try await SQLAuditLog.record(audit(id), in: db, now: now)
            var started = activity
            started.id = id
            started.startAlert = activity.alert
            started.createdAt = dateFromMilliseconds(nowMs)
            started.updatedAt = started.createdAt
            started.version = 1
            return started
        }
    }

    public func activity(id: Int64) async throws -> ActivityRecord? {
        try await engine.read { db in try await Self.activity(id: id, in: db) }
    }

    public func update(
        id: Int64, contentState: String, alert: ActivityAlert?, staleDate: Date?, audit: AuditEntry? = nil, now: Date = .now
    ) async throws -> ActivityRecord? {
        try await engine.transaction { db in
            let nowMs = EpochMilliseconds(now)
            var change = db.update("live_activities").set("content_state", to: contentState).set("alert", to: try Self.text(of: alert))
            if let staleDate { change = change.set("stale_date", to: EpochMilliseconds(staleDate)) }
            guard let version = try await Self.nextVersion(of: id, change, now: nowMs) else { return nil }
            // A start not sent yet carries the new state when it goes; a device sent its start gets an update.
            try await Self.due(db, version: version, now: nowMs).where("activity_id", .equal, id)
                .where("state", .notEqual, DeliveryState.failed.rawValue).where("event", .equal, LiveActivityEvent.start.rawValue)
                .where("sent_version", .equal, 0).run()
            try await Self.due(db, version: version, now: nowMs).set("event", to: LiveActivityEvent.update.rawValue)
                .where("activity_id", .equal, id).where("sent_version", .greaterThan, 0).run()
            try await SQLAuditLog.record(audit, in: db, now: now)
            return try await Self.activity(id: id, in: db)
        }
    }

    public func end(id: Int64, dismissalDate: Date?, audit: AuditEntry? = nil, now: Date = .now) async throws -> ActivityRecord? {
        try await engine.transaction { db in
            let nowMs = EpochMilliseconds(now)
            // The end raises no alert of an update before it.
            let change = db.update("live_activities").set("ended_at", to: nowMs).set("dismissal_date", to: dismissalDate.map(EpochMilliseconds))
                .set("alert", to: String?.none)
            guard let version = try await Self.nextVersion(of: id, change, now: nowMs) else { return nil }
            // A start not sent, and not on its way, is never sent; a device that has one, or may, gets the end.
            try await db.update("activity_deliveries").set("state", to: DeliveryState.canceled.rawValue).set("finished_at", to: nowMs)
                .where("activity_id", .equal, id).where("sent_version", .equal, 0).where("state", .equal, DeliveryState.pending.rawValue)
                .where(SQLOutbox.unleased(at: nowMs)).run()
            try await Self.due(db, version: version, now: nowMs).set("event", to: LiveActivityEvent.end.rawValue)
                .where("activity_id", .equal, id)
                .where {
                    $0.where("sent_version", .greaterThan, 0).orWhere("state", .equal, DeliveryState.pending.rawValue)
                }
                .run()
            try await SQLAuditLog.record(audit, in: db, now: now)
            return try await Self.activity(id: id, in: db)
        }
    }

    /// Applies `change` to the activity with its next version, when it has not ended; answers that version. One
    /// statement, so that of an update and an end at once in two processes, the second waits for the first and
    /// finds the activity as it left it.
    private static func nextVersion(of id: Int64, _ change: SQLUpdateBuilder, now nowMs: Int64) async throws -> Int64? {
        try await change.set("version", to: SQLRaw("version + 1")).set("updated_at", to: nowMs).where("id", .equal, id)
            .where("ended_at", .is, SQLLiteral.null).returning("version").first()?.int64("version")
    }

    /// An update of device rows making them due now for `version`, their attempts and error cleared.
    private static func due(_ db: any SQLDatabase, version: Int64, now nowMs: Int64) -> SQLUpdateBuilder {
        db.update("activity_deliveries").set("version", to: version).set("state", to: DeliveryState.pending.rawValue).set("due_at", to: nowMs)
            .set("attempts", to: 0).set("error_code", to: String?.none)
    }

    public func claimDue(
        recording finished: [(job: ActivityJob, outcome: DeliveryOutcome)], limit: Int, lease: TimeInterval, now: Date = .now
    ) async throws -> [ActivityJob] {
        // Most looks find nothing due: a read answers them without taking the writer.
        if finished.isEmpty, try await nextDue(now: now).map({ $0 > now }) ?? true { return [] }
        return try await engine.transaction { db in
            let nowMs = EpochMilliseconds(now)
            for (job, outcome) in finished { try await Self.record(outcome, of: job, now: now, in: db) }
            let due = SQLSubqueryBuilder()
            // An end whose start never reached its device (it failed after the end came) has nothing to end.
            try await db.update("activity_deliveries").set("state", to: DeliveryState.canceled.rawValue).set("finished_at", to: nowMs)
                .where("event", .equal, LiveActivityEvent.end.rawValue).where("sent_version", .equal, 0)
                .where("state", .equal, DeliveryState.pending.rawValue).where(SQLOutbox.unleased(at: nowMs)).run()
            _ = due.column("id").from("activity_deliveries").where("state", .equal, DeliveryState.pending.rawValue)
                .where("due_at", .lessThanOrEqual, nowMs).where(SQLOutbox.unleased(at: nowMs)).where(Self.hasToken)
                .orderBy("due_at").limit(limit).skippingLocked(SQLOutbox.skipLockedClause(db))
            let rows = try await db.select()
                .columns(
                    SQLColumn("id", table: "d"), SQLColumn("activity_id", table: "d"), SQLColumn("installation_id", table: "d"),
                    SQLColumn("owner", table: "d"), SQLColumn("event", table: "d"), SQLColumn("attempts", table: "d"),
                    SQLAlias(SQLColumn("token", table: "s"), as: SQLIdentifier("start_token")),
                    SQLAlias(SQLColumn("token", table: "u"), as: SQLIdentifier("update_token"))
                )
                .from(SQLAlias(SQLIdentifier("activity_deliveries"), as: SQLIdentifier("d")))
                .join(
                    SQLAlias(SQLIdentifier("activity_start_tokens"), as: SQLIdentifier("s")), method: SQLJoinMethod.left,
                    on: SQLColumn("installation_id", table: "s"), .equal, SQLColumn("installation_id", table: "d")
                )
                .join(
                    SQLAlias(SQLIdentifier("activity_update_tokens"), as: SQLIdentifier("u")), method: SQLJoinMethod.left,
                    on: SQLBinaryExpression(
                        SQLBinaryExpression(SQLColumn("activity_id", table: "u"), .equal, SQLColumn("activity_id", table: "d")), .and,
                        SQLBinaryExpression(SQLColumn("installation_id", table: "u"), .equal, SQLColumn("installation_id", table: "d")))
                )
                .where(SQLColumn("id", table: "d"), .in, due.query).all()
            guard !rows.isEmpty else { return [] }
            var activities: [Int64: ActivityRecord] = [:]
            var jobs: [ActivityJob] = []
            for row in rows {
                let activityId = try row.int64("activity_id")
                if activities[activityId] == nil { activities[activityId] = try await Self.activity(id: activityId, in: db) }
                guard let activity = activities[activityId] else { continue }
                let event = try row.enumeration("event", as: LiveActivityEvent.self)
                let token = event == .start ? try row.optionalString("start_token") : try row.optionalString("update_token")
                guard let token else { continue }
                jobs.append(
                    ActivityJob(
                        deliveryId: try row.int64("id"), installationId: try row.string("installation_id"), owner: try row.string("owner"),
                        token: token, event: event, attempts: try row.int("attempts") + 1, activity: activity))
            }
            try await db.update("activity_deliveries").set("lease_until", to: EpochMilliseconds(now + lease))
                .set("attempts", to: SQLOutbox.oneMoreAttempt).where(SQLIdSet("id", in: jobs.map(\.deliveryId))).run()
            return jobs.sorted { $0.deliveryId < $1.deliveryId }
        }
    }

    public func nextDue(now: Date = .now) async throws -> Date? {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MIN", args: SQLIdentifier("due_at")), as: "due").from("activity_deliveries")
                .where("state", .equal, DeliveryState.pending.rawValue).where(SQLOutbox.unleased(at: EpochMilliseconds(now)))
                .where {
                    // A push its device can take, or an end with no start to end, which the next claim cancels.
                    $0.where(Self.hasToken).orWhere {
                        $0.where("event", .equal, LiveActivityEvent.end.rawValue).where("sent_version", .equal, 0)
                    }
                }
                .first()?
                .decode(column: "due", as: Int64?.self).map { dateFromMilliseconds($0) }
        }
    }

    public func deliveries(of activityId: Int64, after: String?, limit: Int) async throws -> [ActivityDeliveryResult] {
        try await engine.read { db in
            var query = db.select().columns("installation_id", "owner", "event", "state", "attempts", "error_code", "finished_at", "sent_version")
                .column(SQLAlias(SQLQueryString("CASE WHEN \(Self.hasToken) THEN 1 ELSE 0 END"), as: SQLIdentifier("has_token"))).from(
                    "activity_deliveries"
                ).where("activity_id", .equal, activityId)
            if let after { query = query.where("installation_id", .greaterThan, after) }
            return try await query.orderBy("installation_id").limit(limit).all().map { row in
                let state = try row.string("state")
                let waits = try state == DeliveryState.pending.rawValue && row.int("has_token") == 0
                return ActivityDeliveryResult(
                    installationId: try row.string("installation_id"), owner: try row.string("owner"),
                    event: try row.enumeration("event", as: LiveActivityEvent.self), state: state,
                    reason: waits ? "activity.awaitingToken" : try row.optionalString("error_code"), attempts: try row.int("attempts"),
                    sentAt: try row.int64("sent_version") > 0 ? try row.optionalDate("finished_at") : nil)
            }
        }
    }

    /// Whether a row's device has the token its event goes to: the push-to-start token for a start, the activity's
    /// update token for an update or an end.
    static let hasToken = SQLRaw(
        """
        CASE WHEN event = 'start' THEN EXISTS (SELECT 1 FROM activity_start_tokens s WHERE s.installation_id = activity_deliveries.installation_id) \
        ELSE EXISTS (SELECT 1 FROM activity_update_tokens u WHERE u.activity_id = activity_deliveries.activity_id \
        AND u.installation_id = activity_deliveries.installation_id) END
        """)

    /// Records one push's outcome. A push sent leaves its row pending when a newer state came meanwhile.
    static func record(_ outcome: DeliveryOutcome, of job: ActivityJob, now: Date, in db: any SQLDatabase) async throws {
        let nowMs = EpochMilliseconds(now)
        let row = db.update("activity_deliveries").set("lease_until", to: Int64?.none)
        switch outcome {
        case .sent:
            // A newer state came while this one was on its way: the device gets it next, a start being followed by an update.
            let version = job.activity.version
            try await row.set("sent_version", to: version).set("finished_at", to: nowMs).set("error_code", to: String?.none)
                .set("event", to: SQLRaw("CASE WHEN event = 'start' AND version > \(version) THEN 'update' ELSE event END"))
                .set("state", to: SQLRaw("CASE WHEN version > \(version) THEN 'pending' ELSE 'sent' END"))
                .where("id", .equal, job.deliveryId).where("state", .equal, DeliveryState.pending.rawValue).run()
        case .retry(let after, let code, _) where job.attempts < maximumAttempts:
            let backoff = max(after, min(600, pow(2, Double(job.attempts))))
            try await row.set("due_at", to: EpochMilliseconds(now + backoff)).set("error_code", to: code).where("id", .equal, job.deliveryId).run()
        case .postponed(let after, let code, _):
            try await row.set("due_at", to: EpochMilliseconds(now + after)).set("error_code", to: code)
                .set("attempts", to: SQLRaw("attempts - 1")).where("id", .equal, job.deliveryId).run()
        case .retry(_, let code, _), .failed(let code, _), .deviceGone(let code, _):
            try await row.set("state", to: DeliveryState.failed.rawValue).set("error_code", to: code).set("finished_at", to: nowMs)
                .where("id", .equal, job.deliveryId).run()
        }
    }

    /// Forgets a deleted installation's Live Activity tokens and ends its waiting pushes: an id registered again by
    /// someone else must not inherit a token that reaches the phone it named before.
    static func forget(installation id: String, now: Date, in db: any SQLDatabase) async throws {
        try await db.delete(from: "activity_start_tokens").where("installation_id", .equal, id).run()
        try await db.delete(from: "activity_update_tokens").where("installation_id", .equal, id).run()
        try await db.update("activity_deliveries").set("state", to: DeliveryState.failed.rawValue).set("error_code", to: "installation.deleted")
            .set("finished_at", to: EpochMilliseconds(now)).where("installation_id", .equal, id)
            .where("state", .equal, DeliveryState.pending.rawValue).run()
    }

    static func activity(id: Int64, in db: any SQLDatabase) async throws -> ActivityRecord? {
        guard let row = try await db.select().columns("*").from("live_activities").where("id", .equal, id).first() else { return nil }
        return ActivityRecord(
            id: try row.int64("id"), audience: try row.string("audience"), attributesType: try row.string("attributes_type"),
            attributes: try row.string("attributes"), contentState: try row.string("content_state"),
            alert: try Self.alert(row.optionalString("alert")), startAlert: try Self.alert(row.optionalString("start_alert")),
            staleDate: try row.optionalDate("stale_date"), relevanceScore: try row.decode(column: "relevance_score", as: Double?.self),
            createdBy: try row.string("created_by"), createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"),
            version: try row.int64("version"), endedAt: try row.optionalDate("ended_at"), dismissalDate: try row.optionalDate("dismissal_date"))
    }

    static func text(of alert: ActivityAlert?) throws -> String? {
        try alert.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    static func alert(_ text: String?) throws -> ActivityAlert? {
        try text.map { try JSONDecoder().decode(ActivityAlert.self, from: Data($0.utf8)) }
    }
}
