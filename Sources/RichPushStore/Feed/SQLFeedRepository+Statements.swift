public import Foundation
public import RichPushCore
import SQLKit

extension SQLFeedRepository {
    static func feedItem(username: String, notificationId: Int64, in db: any SQLDatabase, now: Date) async throws -> FeedItem? {
        try await visibleFeed(of: username, in: db, now: now)
            .columns(itemColumns)
            .where(SQLColumn("id", table: "n"), .equal, SQLBind(notificationId)).first().map(feedItem)
    }

    /// What ``feedItem(_:)`` reads of a visible feed entry and its notification.
    static let itemColumns: [any SQLExpression] = [
        SQLColumn("id", table: "n"), SQLColumn("message", table: "n"), SQLColumn("rich_type", table: "n"), SQLColumn("read_state", table: "f"),
        SQLColumn("user_action_state", table: "f"), SQLColumn("action_id", table: "f"), SQLColumn("created_at", table: "n"),
        SQLColumn("seq", table: "f"), SQLColumn("content", table: "n"), SQLColumn("variants", table: "n"), SQLColumn("variant", table: "f"),
    ]

    /// Feed entries of `username` whose notifications were released and are neither canceled, recalled nor expired.
    static func visibleFeed(of username: String, in db: any SQLDatabase, now: Date) -> SQLSelectBuilder {
        visibleFeeds(in: db, now: now).where(SQLColumn("username", table: "f"), .equal, SQLBind(username))
    }

    /// The visible feed entries (`f`) of every user, with their notifications (`n`).
    static func visibleFeeds(in db: any SQLDatabase, now: Date) -> SQLSelectBuilder {
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
        for chunk in usernames.chunked(SQLNotificationRepository.insertChunk) {
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

    /// Records the first fetch by the installation `fetch` names, when that installation is the fetching user's
    /// (any owner's, for a signed link, which names no user), and answers its owner; nil when it names none, or one
    /// that is not hers.
    static func recordInstallationFetch(_ fetch: PayloadFetch, in db: any SQLDatabase) async throws -> String? {
        guard let installationId = fetch.installationId,
            let owner = try await db.select().column("owner").from("installations").where("id", .equal, installationId).first()?
                .string("owner"),
            fetch.username.map({ $0 == owner }) ?? true
        else { return nil }
        try await db.insert(into: "installation_fetches").columns("notification_id", "installation_id", "fetched_at")
            .values(fetch.notificationId, installationId, EpochMilliseconds(fetch.at)).ignoringConflicts(with: ["notification_id", "installation_id"])
            .run()
        return owner
    }

    /// An item as its user sees it: in the user's variant of an A/B test.
    static func feedItem(_ row: any SQLRow) throws -> FeedItem {
        let name = try row.optionalString("variant")
        let variant = try name.flatMap { name in try SQLNotificationRepository.variants(row.optionalString("variants")).first { $0.name == name } }
        return FeedItem(
            id: try row.int64("id"), message: try variant?.message ?? row.string("message"),
            richType: try row.enumeration("rich_type", as: RichType.self),
            content: try variant?.content ?? SQLNotificationRepository.content(row.optionalString("content")),
            readState: try row.enumeration("read_state", as: ReadState.self),
            userActionState: try row.enumeration("user_action_state", as: UserActionState.self), action: try row.optionalString("action_id"),
            createdAt: try row.date("created_at"),
            seq: try row.int64("seq"))
    }
}
