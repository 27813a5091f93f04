public import Foundation
public import RichPushCore
import SQLKit

extension SQLMirrorQueue {
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
}
