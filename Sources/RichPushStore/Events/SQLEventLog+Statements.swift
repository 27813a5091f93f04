public import Foundation
public import RichPushCore
import SQLKit

extension SQLEventLog {
    /// Inserts `rich` events, skipping those whose dedupe key is taken; returns the ids of those it inserted.
    ///
    /// PostgreSQL takes each column as one array: as a row of binds per event, a chunk of 1,000 was a statement of
    /// 8,000 parameters for the gateway to encode and the server to parse and plan.
    static func insertRichEvents(_ rows: [RichEventRow], now: Date, in db: any SQLDatabase) async throws -> [Int64] {
        let inserted: [any SQLRow]
        if !db.dialect.bindsArrays {
            var insert = db.insert(into: "events").columns(eventColumns)
            for row in rows {
                insert = insert.values(
                    eventValues(row.event, id: row.id, username: row.owner, installationId: row.installationId, dedupeKey: row.dedupeKey, now: now))
            }
            inserted = try await insert.ignoringConflicts(with: "dedupe_key").returning("id").all()
        } else {
            inserted = try await db.raw(
                """
                INSERT INTO events (\(SQLList(eventColumns.map { SQLIdentifier($0) })))
                SELECT id, username, installation_id, kind, rich_id, data, dedupe_key, \(bind: EpochMilliseconds(now))
                FROM unnest(\(bind: rows.map(\.id))::bigint[], \(bind: rows.map(\.owner))::text[], \(bind: rows.map(\.installationId))::text[],
                    \(bind: rows.map(\.event.name))::text[], \(bind: rows.map(\.event.richId))::bigint[], \(bind: rows.map(\.event.data))::text[],
                    \(bind: rows.map(\.dedupeKey))::text[]) AS new (id, username, installation_id, kind, rich_id, data, dedupe_key)
                ON CONFLICT (dedupe_key) DO NOTHING RETURNING id
                """
            ).all()
        }
        return try inserted.map { try $0.int64("id") }
    }

    /// Appends events for `usernames` and announces them; returns the cursor of each, in order.
    @discardableResult
    static func appendEvents(
        _ event: StreamEvent, usernames: [String], installationId: String?, now: Date, engine: any DatabaseEngine, in db: any SQLDatabase
    ) async throws -> [Int64] {
        guard !usernames.isEmpty else { return [] }
        let first = try await reserve(counter: "events", count: usernames.count, in: db)
        let ids = (0..<Int64(usernames.count)).map { first + $0 }
        for (id, username) in zip(ids, usernames) {
            try await appendEvent(event, id: id, username: username, installationId: installationId, dedupeKey: nil, now: now, in: db)
        }
        try await engine.announce(Set(usernames).map { .events(owner: $0) }, in: db)
        return ids
    }

    /// Appends one event as `id`, a number reserved from the `events` counter; returns false when `dedupeKey` was
    /// used before.
    ///
    /// The counter's row stays locked until the transaction ends, so events become visible in the order of their ids:
    /// a stream that has read up to an id never finds a smaller one committed later (identity columns do not promise
    /// that when several processes write at once).
    @discardableResult
    static func appendEvent(
        _ event: StreamEvent, id: Int64, username: String, installationId: String?, dedupeKey: String?, now: Date, in db: any SQLDatabase
    ) async throws -> Bool {
        try await db.insert(into: "events").columns(eventColumns)
            .values(eventValues(event, id: id, username: username, installationId: installationId, dedupeKey: dedupeKey, now: now))
            .ignoringConflicts(with: "dedupe_key")
            .returning("id").first() != nil
    }

    /// A delivery's event on the direct channel, as ``insertRichEvents(_:now:in:)`` writes it.
    struct RichEventRow {
        var event: StreamEvent
        var id: Int64
        var owner: String
        var installationId: String
        var dedupeKey: String
    }

    static let eventColumns = ["id", "username", "installation_id", "kind", "rich_id", "data", "dedupe_key", "created_at"]

    /// One row of `events`, in the order of ``eventColumns``.
    static func eventValues(
        _ event: StreamEvent, id: Int64, username: String, installationId: String?, dedupeKey: String?, now: Date
    ) -> [any Encodable & Sendable] {
        [id, username, installationId, event.name, event.richId, event.data, dedupeKey, EpochMilliseconds(now)]
    }

    /// Advances counter `name` by `count` and returns the first of the numbers reserved.
    static func reserve(counter name: String, count: Int, in db: any SQLDatabase) async throws -> Int64 {
        let last = try await db.update("counters")
            .set("value", to: SQLBinaryExpression(SQLIdentifier("value"), .add, SQLLiteral.numeric("\(count)")))
            .where("name", .equal, name).returning("value").first()!.int64("value")
        return last - Int64(count) + 1
    }
}

extension StreamEvent {
    /// The notification the event is about, the `rich_id` column of its row.
    fileprivate var richId: Int64 {
        switch body {
        case .rich(let id, _, _, _, _, _, _), .state(let id, _, _), .deleted(let id): id
        }
    }
}
