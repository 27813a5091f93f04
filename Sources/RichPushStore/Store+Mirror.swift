public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Marks an installation for syncing when its platform is mirrored, inside the transaction that changed it.
    static func enqueueMirror(_ installationId: String, platforms: [Platform], mirrored: Set<Platform>, now: Date, in db: any SQLDatabase)
        async throws
    {
        guard platforms.contains(where: mirrored.contains) else { return }
        let nowMs = EpochMilliseconds(now)
        try await db.insert(into: "hub_mirror").columns("installation_id", "version", "due_at", "attempts")
            .values(installationId, 1, nowMs, 0)
            .onConflict(with: "installation_id") {
                $0.set("version", to: SQLBinaryExpression(SQLColumn("version", table: "hub_mirror"), .add, SQLLiteral.numeric("1")))
                    .set("due_at", to: nowMs).set("attempts", to: 0).set("error", to: String?.none)
            }
            .run()
    }

    /// Claims up to `limit` due syncs for `lease` and reads each installation's current state.
    public func claimMirrorTasks(now: Date = .now, limit: Int, lease: TimeInterval) async throws -> [MirrorTask] {
        try await engine.transaction { db in
            let rows = try await db.select().columns("installation_id", "version", "attempts").from("hub_mirror")
                .where("due_at", .lessThanOrEqual, EpochMilliseconds(now)).orderBy("due_at").limit(limit)
                .skippingLocked(Self.skipLockedClause(db)).all()
            guard !rows.isEmpty else { return [] }
            let ids = try rows.map { try $0.string("installation_id") }
            try await db.update("hub_mirror").set("due_at", to: EpochMilliseconds(now + lease)).where("installation_id", .in, ids).run()
            let installations = try await db.select().columns(Self.installationColumns).from("installations").where("id", .in, ids).all()
                .map(Self.installationRecord)
            let byId = Dictionary(uniqueKeysWithValues: installations.map { ($0.id, $0) })
            return try rows.map { row in
                let id = try row.string("installation_id")
                return MirrorTask(installationId: id, version: try row.int64("version"), attempts: try row.int("attempts"), installation: byId[id])
            }
        }
    }

    /// The hub has the state `task` read: done, unless the installation changed again meanwhile.
    public func finishMirrorTask(_ task: MirrorTask) async throws {
        try await engine.transaction { db in
            try await db.delete(from: "hub_mirror").where("installation_id", .equal, task.installationId)
                .where("version", .equal, task.version).run()
        }
    }

    /// The hub refused or could not be reached: try again after `delay`.
    public func postponeMirrorTask(_ task: MirrorTask, delay: TimeInterval, error: String, now: Date = .now) async throws {
        try await engine.transaction { db in
            try await db.update("hub_mirror").set("due_at", to: EpochMilliseconds(now + delay)).set("attempts", to: task.attempts + 1)
                .set("error", to: String(error.prefix(500)))
                .where("installation_id", .equal, task.installationId).where("version", .equal, task.version).run()
        }
    }

    /// When the next sync falls due.
    public func nextMirrorTaskDue() async throws -> Date? {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MIN", args: SQLIdentifier("due_at")), as: "due").from("hub_mirror").first()?
                .optionalDate("due")
        }
    }
}
