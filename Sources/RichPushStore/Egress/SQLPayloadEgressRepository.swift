public import Foundation
import SQLKit

/// The processes' payload egress in `payload_egress`, a row each.
public struct SQLPayloadEgressRepository: PayloadEgressRepository {
    let engine: any DatabaseEngine

    /// How long the row of a process that stopped recording is kept.
    static let keptFor: TimeInterval = 60

    public func exchange(process: String, bytesPerSecond: Int, now: Date, freshFor: TimeInterval) async throws -> Int {
        let nowMs = EpochMilliseconds(now)
        return try await engine.transaction(.deferred) { db in
            // Before its own row is locked: two processes each deleting the other's old row while holding their own
            // would wait for each other.
            try await db.delete(from: "payload_egress").where("updated_at", .lessThan, EpochMilliseconds(now - Self.keptFor)).run()
            try await db.raw(
                """
                INSERT INTO payload_egress (process_id, bytes_per_second, updated_at)
                VALUES (\(bind: process), \(bind: Int64(bytesPerSecond)), \(bind: nowMs))
                ON CONFLICT (process_id) DO UPDATE SET bytes_per_second = excluded.bytes_per_second, updated_at = excluded.updated_at
                """
            ).run()
            // PostgreSQL sums bigints as numeric: the cast reads back as an integer on both engines.
            let others = try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(bytes_per_second), 0) AS BIGINT) AS total FROM payload_egress
                WHERE process_id <> \(bind: process) AND updated_at >= \(bind: EpochMilliseconds(now - freshFor))
                """
            ).first()
            return try others?.int("total") ?? 0
        }
    }
}
