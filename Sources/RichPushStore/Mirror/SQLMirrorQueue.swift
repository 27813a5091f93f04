public import Foundation
public import RichPushCore
import SQLKit

/// The tasks in the `hub_mirror` table.
public struct SQLMirrorQueue: MirrorQueue {
    let engine: any DatabaseEngine

    public func claim(now: Date = .now, limit: Int, lease: TimeInterval) async throws -> [MirrorTask] {
        try await engine.transaction { db in
            let rows = try await db.select().columns("installation_id", "version", "attempts").from("hub_mirror")
                .where("due_at", .lessThanOrEqual, EpochMilliseconds(now)).orderBy("due_at").limit(limit)
                .skippingLocked(SQLOutbox.skipLockedClause(db)).all()
            guard !rows.isEmpty else { return [] }
            let ids = try rows.map { try $0.string("installation_id") }
            try await db.update("hub_mirror").set("due_at", to: EpochMilliseconds(now + lease)).where("installation_id", .in, ids).run()
            let installations = try await db.select().columns(SQLInstallationRepository.installationColumns).from("installations").where(
                "id", .in, ids
            ).all()
                .map(SQLInstallationRepository.installationRecord)
            let byId = Dictionary(uniqueKeysWithValues: installations.map { ($0.id, $0) })
            return try rows.map { row in
                let id = try row.string("installation_id")
                return MirrorTask(installationId: id, version: try row.int64("version"), attempts: try row.int("attempts"), installation: byId[id])
            }
        }
    }

    public func finish(_ task: MirrorTask) async throws {
        try await engine.transaction { db in
            try await db.delete(from: "hub_mirror").where("installation_id", .equal, task.installationId)
                .where("version", .equal, task.version).run()
        }
    }

    public func postpone(_ task: MirrorTask, delay: TimeInterval, error: String, now: Date = .now) async throws {
        try await engine.transaction { db in
            try await db.update("hub_mirror").set("due_at", to: EpochMilliseconds(now + delay)).set("attempts", to: task.attempts + 1)
                .set("error", to: String(error.prefix(500)))
                .where("installation_id", .equal, task.installationId).where("version", .equal, task.version).run()
        }
    }

    public func nextDue() async throws -> Date? {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MIN", args: SQLIdentifier("due_at")), as: "due").from("hub_mirror").first()?
                .optionalDate("due")
        }
    }
}
