public import Foundation
public import RichPushCore
import SQLKit

/// The events in the `events` table.
public struct SQLEventLog: EventLog {
    let engine: any DatabaseEngine

    public func appendRichEvents(for jobs: [DeliveryJob], now: Date = .now) async throws -> Set<String> {
        guard !jobs.isEmpty else { return [] }
        return try await engine.transaction { db in
            // One statement per chunk of events, not one per event: the counter's row stays locked from the
            // reservation to the commit, and the other batches in flight wait for it.
            let first = try await Self.reserve(counter: "events", count: jobs.count, in: db)
            var owners: [Int64: String] = [:]
            var appended: [Int64] = []
            for chunk in Array(zip(first..., jobs)).chunked(SQLNotificationRepository.insertChunk) {
                var rows: [SQLEventLog.RichEventRow] = []
                rows.reserveCapacity(chunk.count)
                for (id, job) in chunk {
                    let event = StreamEvent(cursor: 0, body: .announcing(job.push))
                    owners[id] = job.owner
                    rows.append(
                        SQLEventLog.RichEventRow(
                            event: event, id: id, owner: job.owner, installationId: job.installationId, dedupeKey: "rich:\(job.deliveryId)"))
                }
                appended += try await Self.insertRichEvents(rows, now: now, in: db)
            }
            let notified = Set(appended.compactMap { owners[$0] })
            try await engine.announce(notified.map { .events(owner: $0) }, in: db)
            return notified
        }
    }

    public func events(username: String, installationId: String?, after cursor: Int64, limit: Int) async throws -> [StreamEvent] {
        try await engine.read { db in
            var query = db.select().columns("id", "kind", "data").from("events")
                .where("username", .equal, username).where("id", .greaterThan, cursor)
            if let installationId {
                query = query.where { $0.where("installation_id", .is, SQLLiteral.null).orWhere("installation_id", .equal, installationId) }
            }
            return try await query.orderBy("id").limit(limit).all().compactMap { row in
                StreamEvent(ServerSentEvent(id: String(try row.int64("id")), event: try row.string("kind"), data: try row.string("data")))
            }
        }
    }

    public func latestCursor() async throws -> Int64 {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MAX", args: SQLIdentifier("id")), as: "id").from("events").first()?
                .decode(column: "id", as: Int64?.self) ?? 0
        }
    }
}
