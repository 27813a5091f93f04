public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// A user's feed. Without `since`: the newest `limit` items, newest first. With `since`: the items created or
    /// changed after that cursor, oldest change first. The returned cursor continues from where the page ends.
    public func feed(username: String, since: Int64?, limit: Int, now: Date = .now) async throws -> (items: [FeedItem], cursor: Int64) {
        try await engine.read { db in
            var query = Self.visibleFeed(of: username, in: db, now: now)
                .columns(
                    SQLColumn("id", table: "n"), SQLColumn("message", table: "n"), SQLColumn("rich_type", table: "n"),
                    SQLColumn("read_state", table: "f"), SQLColumn("user_action_state", table: "f"),
                    SQLColumn("created_at", table: "n"), SQLColumn("seq", table: "f"), SQLColumn("content", table: "n"),
                    SQLColumn("variants", table: "n"), SQLColumn("variant", table: "f"))
            if let since {
                query = query.where(SQLColumn("seq", table: "f"), .greaterThan, SQLBind(since))
                    .orderBy(SQLColumn("seq", table: "f"), SQLDirection.ascending)
            } else {
                query = query.orderBy(SQLColumn("seq", table: "f"), SQLDirection.descending)
            }
            let items = try await query.limit(limit).all().map(Self.feedItem)
            let cursor: Int64
            if let since {
                cursor = items.last?.seq ?? since
            } else {
                cursor =
                    try await db.select().column(SQLFunction("MAX", args: SQLIdentifier("seq")), as: "seq").from("feed_entries")
                    .where("username", .equal, username).first()?.decode(column: "seq", as: Int64?.self) ?? 0
            }
            return (items, cursor)
        }
    }

    /// Changes a user's state of a notification in the feed, appends a `state` event for the user's devices and puts a
    /// state push for each of the user's remote devices but `origin` (the one that made the change) in the outbox.
    /// Returns nil when the notification is not in the user's feed, and no event when nothing changed.
    public func updateFeedState(
        username: String, notificationId: Int64, readState: ReadState?, userActionState: UserActionState?, origin: String? = nil,
        now: Date = .now
    ) async throws -> (item: FeedItem, eventCursor: Int64?)? {
        try await engine.transaction { db in
            guard let current = try await Self.feedItem(username: username, notificationId: notificationId, in: db, now: now) else {
                return nil
            }
            let read = readState ?? current.readState
            let action = userActionState ?? current.userActionState
            guard read != current.readState || action != current.userActionState else { return (current, nil) }
            let seq = try await Self.reserveFeedSequence(count: 1, in: db)
            try await db.update("feed_entries").set("read_state", to: read.rawValue).set("user_action_state", to: action.rawValue)
                .set("seq", to: seq).set("updated_at", to: EpochMilliseconds(now))
                .where("notification_id", .equal, notificationId).where("username", .equal, username).run()
            let event = StreamEvent(cursor: 0, body: .state(richId: notificationId, readState: read, userActionState: action))
            let cursor = try await Self.appendEvents(event, usernames: [username], installationId: nil, now: now, engine: engine, in: db).first
            try await Self.enqueueStatePushes(
                .state(readState: read, userActionState: action), notificationId: notificationId, recipients: .user(username), except: origin,
                now: now, in: db)
            var item = current
            item.readState = read
            item.userActionState = action
            item.seq = seq
            return (item, cursor)
        }
    }

    /// Removes a notification from a user's feed, appends a `deleted` event for the user's devices and puts a state
    /// push for each of its remote devices but `origin` in the outbox; returns the event's cursor, or nil when the
    /// notification is not in the user's visible feed. The user stays a recipient: the payload is readable until it
    /// expires, and the campaign's counts keep the entry.
    public func removeFromFeed(username: String, notificationId: Int64, origin: String? = nil, now: Date = .now) async throws -> Int64? {
        try await engine.transaction { db in
            guard try await Self.feedItem(username: username, notificationId: notificationId, in: db, now: now) != nil else { return nil }
            try await db.update("feed_entries").set("removed_at", to: EpochMilliseconds(now))
                .where("notification_id", .equal, notificationId).where("username", .equal, username).run()
            let event = StreamEvent(cursor: 0, body: .deleted(richId: notificationId))
            try await Self.enqueueStatePushes(.deleted, notificationId: notificationId, recipients: .user(username), except: origin, now: now, in: db)
            return try await Self.appendEvents(event, usernames: [username], installationId: nil, now: now, engine: engine, in: db).first
        }
    }

    /// One item of a user's visible feed.
    public func feedItem(username: String, notificationId: Int64, now: Date = .now) async throws -> FeedItem? {
        try await engine.read { db in try await Self.feedItem(username: username, notificationId: notificationId, in: db, now: now) }
    }

    /// Notes the first time each recipient fetched a payload, all in one transaction; later fetches change nothing.
    public func recordFetches(_ fetches: [PayloadFetch], now: Date = .now) async throws {
        guard !fetches.isEmpty else { return }
        try await engine.transaction { db in
            for fetch in fetches {
                try await db.update("feed_entries").set("fetched_at", to: EpochMilliseconds(now))
                    .where("notification_id", .equal, fetch.notificationId).where("username", .equal, fetch.username)
                    .where("fetched_at", .is, SQLLiteral.null).run()
            }
        }
    }

    /// Records that an installation showed a notification; returns false when it was recorded before.
    public func recordReceipt(notificationId: Int64, installationId: String, event: ReceiptEvent, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            try await db.insert(into: "receipts").columns("notification_id", "installation_id", "event", "created_at")
                .values(notificationId, installationId, event.rawValue, EpochMilliseconds(now))
                .ignoringConflicts(with: ["notification_id", "installation_id", "event"])
                .returning("notification_id").first() != nil
        }
    }

    private static func feedItem(username: String, notificationId: Int64, in db: any SQLDatabase, now: Date) async throws -> FeedItem? {
        try await visibleFeed(of: username, in: db, now: now)
            .columns(
                SQLColumn("id", table: "n"), SQLColumn("message", table: "n"), SQLColumn("rich_type", table: "n"),
                SQLColumn("read_state", table: "f"), SQLColumn("user_action_state", table: "f"),
                SQLColumn("created_at", table: "n"), SQLColumn("seq", table: "f"), SQLColumn("content", table: "n"),
                SQLColumn("variants", table: "n"), SQLColumn("variant", table: "f")
            )
            .where(SQLColumn("id", table: "n"), .equal, SQLBind(notificationId)).first().map(feedItem)
    }

    /// Feed entries of `username` whose notifications were released and are neither canceled, recalled nor expired.
    private static func visibleFeed(of username: String, in db: any SQLDatabase, now: Date) -> SQLSelectBuilder {
        visibleFeeds(in: db, now: now).where(SQLColumn("username", table: "f"), .equal, SQLBind(username))
    }

    /// The visible feed entries (`f`) of every user, with their notifications (`n`).
    private static func visibleFeeds(in db: any SQLDatabase, now: Date) -> SQLSelectBuilder {
        db.select()
            .from(SQLAlias(SQLIdentifier("feed_entries"), as: SQLIdentifier("f")))
            .join(
                SQLAlias(SQLIdentifier("notifications"), as: SQLIdentifier("n")), method: SQLJoinMethod.inner,
                on: SQLColumn("id", table: "n"), .equal, SQLColumn("notification_id", table: "f")
            )
            .where(SQLColumn("seq", table: "f"), .isNot, SQLLiteral.null)
            .where(SQLColumn("removed_at", table: "f"), .is, SQLLiteral.null)
            .where(SQLColumn("canceled_at", table: "n"), .is, SQLLiteral.null)
            .where(SQLColumn("deleted_at", table: "n"), .is, SQLLiteral.null)
            .where {
                $0.where(SQLColumn("expires_at", table: "n"), .is, SQLLiteral.null)
                    .orWhere(SQLColumn("expires_at", table: "n"), .greaterThan, SQLBind(EpochMilliseconds(now)))
            }
    }

    /// How many unread notifications each of `usernames` has in its feed, for badges counted per user.
    static func unreadCounts(of usernames: [String], now: Date, in db: any SQLDatabase) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for chunk in usernames.chunked(insertChunk) {
            let rows = try await visibleFeeds(in: db, now: now)
                .column(SQLColumn("username", table: "f"), as: "username")
                .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "unread")
                .where(SQLColumn("username", table: "f"), .in, SQLBind.group(Array(chunk)))
                .where(SQLColumn("read_state", table: "f"), .equal, SQLLiteral.string(ReadState.unread.rawValue))
                .groupBy(SQLColumn("username", table: "f")).all()
            for row in rows { counts[try row.string("username")] = try row.int("unread") }
        }
        return counts
    }

    /// An item as its user sees it: in the user's variant of an A/B test.
    private static func feedItem(_ row: any SQLRow) throws -> FeedItem {
        let name = try row.optionalString("variant")
        let variant = try name.flatMap { name in try variants(row.optionalString("variants")).first { $0.name == name } }
        return FeedItem(
            id: try row.int64("id"), message: try variant?.message ?? row.string("message"),
            richType: try row.enumeration("rich_type", as: RichType.self), content: try variant?.content ?? content(row.optionalString("content")),
            readState: try row.enumeration("read_state", as: ReadState.self),
            userActionState: try row.enumeration("user_action_state", as: UserActionState.self), createdAt: try row.date("created_at"),
            seq: try row.int64("seq"))
    }
}
