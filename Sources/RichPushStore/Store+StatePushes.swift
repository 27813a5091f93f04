public import Foundation
public import RichPushCore
import SQLKit

/// Whose devices a state push goes to.
enum StatePushRecipients {
    /// One user, who changed the state on one of its devices.
    case user(String)
    /// Everyone in the notification's feed: it was recalled.
    case feed(ofNotification: Int64)
}

extension Store {
    /// The platforms whose devices hear of state changes by push; direct devices hear on their stream.
    static let statePushPlatforms: [Platform] = [.apns, .fcm, .wns, .webpush]
    /// At most one state push per device and notification this often; the latest state waits out the rest.
    static let statePushInterval: Int64 = 10_000
    /// A state push not delivered within a day is not worth delivering.
    static let statePushLifetime: TimeInterval = 86_400

    /// Puts a state push for every live remote device of `recipients` but `origin` in the outbox, in the caller's
    /// transaction. A device with one not yet sent gets the newer state in its place; one sent less than
    /// ``statePushInterval`` ago falls due when that interval ends.
    static func enqueueStatePushes(
        _ event: PushEvent, notificationId: Int64, recipients: StatePushRecipients, except origin: String?, now: Date, in db: any SQLDatabase
    ) async throws {
        let (kind, read, action): (String, String?, String?)
        switch event {
        case .rich: return
        case .state(let readState, let actionState): (kind, read, action) = ("state", readState.rawValue, actionState.rawValue)
        case .deleted: (kind, read, action) = ("deleted", nil, nil)
        }
        let nowMs = EpochMilliseconds(now)
        let owners: SQLQueryString =
            switch recipients {
            case .user(let username): "owner = \(bind: username)"
            case .feed(let notificationId): "owner IN (SELECT username FROM feed_entries WHERE notification_id = \(bind: notificationId))"
            }
        let platforms = statePushPlatforms.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let exclusion: SQLQueryString = origin.map { "AND id <> \(bind: $0)" } ?? ""
        try await db.raw(
            """
            INSERT INTO state_pushes (installation_id, notification_id, owner, event, read_state, user_action_state, version, state,
                due_at, attempts, updated_at)
            SELECT id, \(bind: notificationId), owner, \(bind: kind), \(bind: read), \(bind: action), 1, 'pending', \(bind: nowMs), 0,
                \(bind: nowMs)
            FROM installations WHERE \(owners) AND platform IN (\(unsafeRaw: platforms)) AND dead_at IS NULL \(exclusion)
            ON CONFLICT (installation_id, notification_id) DO UPDATE SET event = excluded.event, read_state = excluded.read_state,
                user_action_state = excluded.user_action_state, version = state_pushes.version + 1, state = 'pending', attempts = 0,
                error_code = NULL, updated_at = excluded.updated_at,
                due_at = CASE WHEN state_pushes.last_sent_at + \(unsafeRaw: String(statePushInterval)) > excluded.due_at
                    THEN state_pushes.last_sent_at + \(unsafeRaw: String(statePushInterval)) ELSE excluded.due_at END
            """
        ).run()
    }

    /// Claims up to `limit` due state pushes for `lease` seconds.
    public func claimDueStatePushes(limit: Int, lease: TimeInterval, now: Date = .now) async throws -> [StatePushClaim] {
        let nowMs = EpochMilliseconds(now)
        return try await engine.transaction(.deferred) { db in
            let rows = try await db.select()
                .columns(
                    SQLColumn("id", table: "state_pushes"), SQLColumn("version", table: "state_pushes"),
                    SQLColumn("notification_id", table: "state_pushes"), SQLColumn("event", table: "state_pushes"),
                    SQLColumn("read_state", table: "state_pushes"), SQLColumn("user_action_state", table: "state_pushes"),
                    SQLColumn("attempts", table: "state_pushes"), SQLColumn("installation_id", table: "state_pushes"),
                    SQLColumn("owner", table: "installations"), SQLColumn("platform", table: "installations"),
                    SQLColumn("push_channel", table: "installations")
                )
                .from("state_pushes")
                .join("installations", on: SQLColumn("id", table: "installations"), .equal, SQLColumn("installation_id", table: "state_pushes"))
                .where(SQLColumn("state", table: "state_pushes"), .equal, SQLBind("pending"))
                .where(SQLColumn("due_at", table: "state_pushes"), .lessThanOrEqual, SQLBind(nowMs))
                .where {
                    $0.where(SQLColumn("claimed_until", table: "state_pushes"), .is, SQLLiteral.null)
                        .orWhere(SQLColumn("claimed_until", table: "state_pushes"), .lessThanOrEqual, SQLBind(nowMs))
                }
                .where(SQLColumn("dead_at", table: "installations"), .is, SQLLiteral.null)
                .orderBy(SQLColumn("due_at", table: "state_pushes")).limit(limit).all()
            guard !rows.isEmpty else { return [] }
            let ids = try rows.map { try $0.int64("id") }
            try await db.update("state_pushes").set("claimed_until", to: EpochMilliseconds(now + lease))
                .set(SQLIdentifier("attempts"), to: SQLRaw("attempts + 1")).where("id", .in, ids).run()
            return try rows.map { row in
                let notificationId = try row.int64("notification_id")
                let event: PushEvent =
                    if try row.string("event") == "deleted" {
                        .deleted
                    } else {
                        .state(
                            readState: try row.enumeration("read_state", as: ReadState.self),
                            userActionState: try row.enumeration("user_action_state", as: UserActionState.self))
                    }
                let job = DeliveryJob(
                    deliveryId: try row.int64("id"), attempt: try row.int("attempts") + 1, notificationId: notificationId,
                    push: .stateChange(richId: notificationId, event: event), audience: "", expiresAt: now + Self.statePushLifetime,
                    installationId: try row.string("installation_id"), owner: try row.string("owner"),
                    platform: try row.enumeration("platform", as: Platform.self), pushChannel: try row.string("push_channel"),
                    variesByDevice: true)
                return StatePushClaim(job: job, version: try row.int64("version"))
            }
        }
    }

    /// Records what the hubs answered. A push sent while its state changed again leaves the newer state due when the
    /// interval ends; a device the hub calls gone is marked dead, as a delivery's would be.
    public func recordStatePushOutcomes(_ results: [(claim: StatePushClaim, outcome: DeliveryOutcome)], now: Date = .now) async throws {
        guard !results.isEmpty else { return }
        let nowMs = EpochMilliseconds(now)
        try await engine.transaction(.deferred) { db in
            for (claim, outcome) in results {
                let id = claim.job.deliveryId
                let current = db.update("state_pushes").set("claimed_until", to: Int64?.none).where("id", .equal, id)
                    .where("version", .equal, claim.version)
                switch outcome {
                case .sent:
                    try await current.set("state", to: "sent").set("last_sent_at", to: nowMs).run()
                    try await db.update("state_pushes").set("claimed_until", to: Int64?.none).set("last_sent_at", to: nowMs)
                        .set("due_at", to: nowMs + Self.statePushInterval).where("id", .equal, id).where("version", .notEqual, claim.version).run()
                case .retry(let after, let code, _):
                    try await db.update("state_pushes").set("claimed_until", to: Int64?.none).set("error_code", to: code)
                        .set("due_at", to: EpochMilliseconds(now + after)).where("id", .equal, id).run()
                case .failed(let code, _), .deviceGone(let code, _):
                    try await current.set("state", to: "failed").set("error_code", to: code).run()
                    try await db.update("state_pushes").set("claimed_until", to: Int64?.none).where("id", .equal, id)
                        .where("version", .notEqual, claim.version).run()
                    if case .deviceGone = outcome { try await Self.markGone(claim.job.installationId, code: code, at: nowMs, in: db) }
                }
            }
        }
    }

    /// When the next state push falls due, if one is waiting.
    public func nextStatePushDue() async throws -> Date? {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MIN", args: SQLColumn("due_at")), as: "due").from("state_pushes")
                .where("state", .equal, "pending").first()?.decode(column: "due", as: Int64?.self).map(dateFromMilliseconds)
        }
    }

    /// The state pushes of a notification by state (`pending`, `sent`, `failed`): they are not part of its funnel.
    public func statePushCounts(notificationId: Int64) async throws -> [String: Int] {
        try await engine.read { db in
            var counts: [String: Int] = [:]
            for row in try await db.select().column("state").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
                .from("state_pushes").where("notification_id", .equal, notificationId).groupBy("state").all()
            {
                counts[try row.string("state")] = try row.int("n")
            }
            return counts
        }
    }
}
