public import Foundation
public import RichPushCore
import SQLKit

/// The state pushes in the `state_pushes` table.
public struct SQLStatePushQueue: StatePushQueue {
    let engine: any DatabaseEngine

    public func claimDue(limit: Int, lease: TimeInterval, now: Date = .now) async throws -> [StatePushClaim] {
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

    public func recordOutcomes(_ results: [(claim: StatePushClaim, outcome: DeliveryOutcome)], now: Date = .now) async throws {
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
                        .set("due_at", to: nowMs + Self.statePushInterval).where("id", .equal, id).where(
                            "version", .notEqual, claim.version
                        ).run()
                case .retry(let after, let code, _), .postponed(let after, let code, _):
                    try await db.update("state_pushes").set("claimed_until", to: Int64?.none).set("error_code", to: code)
                        .set("due_at", to: EpochMilliseconds(now + after)).where("id", .equal, id).run()
                case .failed(let code, _), .deviceGone(let code, _):
                    try await current.set("state", to: "failed").set("error_code", to: code).run()
                    try await db.update("state_pushes").set("claimed_until", to: Int64?.none).where("id", .equal, id)
                        .where("version", .notEqual, claim.version).run()
                    if case .deviceGone = outcome { try await SQLOutbox.markGone([claim.job.installationId], code: code, at: nowMs, in: db) }
                }
            }
        }
    }

    public func nextDue() async throws -> Date? {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MIN", args: SQLColumn("due_at")), as: "due").from("state_pushes")
                .where("state", .equal, "pending").first()?.decode(column: "due", as: Int64?.self).map(dateFromMilliseconds)
        }
    }

    public func counts(notificationId: Int64) async throws -> [String: Int] {
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
