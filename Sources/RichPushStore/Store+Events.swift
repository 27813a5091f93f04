public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Appends the direct channel's `rich` event for each delivery, once: a delivery dispatched again after a crash
    /// finds its event already there. Returns the users who got a new event.
    public func appendRichEvents(for jobs: [DeliveryJob], now: Date = .now) async throws -> Set<String> {
        try await engine.transaction { db in
            var users: Set<String> = []
            for job in jobs {
                let event = StreamEvent(cursor: 0, body: .rich(richId: job.notificationId, richType: job.richType, richMessage: job.message))
                let cursor = try await Self.appendEvent(
                    event, username: job.owner, installationId: job.installationId, dedupeKey: "rich:\(job.deliveryId)", now: now, in: db)
                if cursor != nil { users.insert(job.owner) }
            }
            return users
        }
    }

    /// The events of `username` after `cursor`, oldest first: those for every device of the user, and with an
    /// `installationId` those for that device, or without one those for any device.
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

    /// The cursor of the newest event of any user: a stream that starts without one begins after it.
    public func latestEventCursor() async throws -> Int64 {
        try await engine.read { db in
            try await db.select().column(SQLFunction("MAX", args: SQLIdentifier("id")), as: "id").from("events").first()?
                .decode(column: "id", as: Int64?.self) ?? 0
        }
    }

    /// Appends one event; returns its cursor, or nil when `dedupeKey` was used before.
    @discardableResult
    static func appendEvent(
        _ event: StreamEvent, username: String, installationId: String?, dedupeKey: String?, now: Date, in db: any SQLDatabase
    ) async throws -> Int64? {
        let richId: Int64
        switch event.body {
        case .rich(let id, _, _), .state(let id, _, _), .deleted(let id): richId = id
        }
        return try await db.insert(into: "events").columns("username", "installation_id", "kind", "rich_id", "data", "dedupe_key", "created_at")
            .values(username, installationId, event.name, richId, event.data, dedupeKey, EpochMilliseconds(now))
            .ignoringConflicts(with: "dedupe_key")
            .returning("id").first()?.int64("id")
    }
}
