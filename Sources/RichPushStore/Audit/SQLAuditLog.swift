import Foundation
public import RichPushCore
import SQLKit

/// The trail in the `audit_events` table.
public struct SQLAuditLog: AuditLog {
    let engine: any DatabaseEngine

    public func events(before: Int64?, limit: Int) async throws -> [AuditEvent] {
        try await engine.read { db in
            var query = db.select().columns("id", "at", "actor", "action", "target", "details").from("audit_events")
            if let before { query = query.where("id", .lessThan, before) }
            return try await query.orderBy("id", .descending).limit(limit).all().map { row in
                AuditEvent(
                    id: try row.int64("id"), at: try row.date("at"), actor: try row.string("actor"), action: try row.string("action"),
                    target: try row.string("target"), details: try row.optionalString("details"))
            }
        }
    }

    /// Writes `entry` in the transaction of `db`, the one of the change it records.
    static func record(_ entry: AuditEntry?, in db: any SQLDatabase, now: Date) async throws {
        guard let entry else { return }
        try await db.insert(into: "audit_events").columns("at", "actor", "action", "target", "details")
            .values(EpochMilliseconds(now), entry.actor, entry.action.rawValue, entry.target, entry.details).run()
    }
}
