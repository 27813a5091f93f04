import Foundation
import RichPushCore
import SQLKit

/// An audience resolved by the database itself: a campaign to a hundred thousand devices is one `INSERT … SELECT`,
/// not a hundred thousand rows read into the process and written back. Notifications, the outbox and audience sizes
/// share these statements.
enum SQLAudience {
    /// Writes the deliveries of notification `id` to the live installations `audience` addresses, in installation id
    /// order: all of them, or those with an id after `after` up to `through`; `inSequence`, into the notification's
    /// sequence (``claimSequences(upTo:audiencePlatforms:withZones:in:)``), which it opens. Returns how many it wrote.
    static func insertDeliveries(
        notificationId id: Int64, audience: TagExpression, due: any SQLExpression, after: String? = nil, through: String? = nil,
        inSequence: Bool, except audiencePlatforms: Set<Platform> = [], in db: any SQLDatabase
    ) async throws -> Int {
        let installation = SQLColumn("id", table: "i")
        let insert = db.insert(into: "deliveries")
            .columns(
                "notification_id", "installation_id", "owner", "platform", "push_channel", "state", "attempts", "due_at", "language",
                "in_sequence"
            )
            .select { select in
                Self.addressed(
                    by: audience, after: after, through: through,
                    select.column(SQLBind(id)).column(installation).column(SQLColumn("owner", table: "i"))
                        .column(SQLColumn("platform", table: "i")).column(SQLColumn("push_channel", table: "i"))
                        .column(SQLBind(DeliveryState.pending.rawValue)).column(SQLLiteral.numeric("0"))
                        .column(due).column(SQLColumn("language", table: "i")).column(Self.inSequence(inSequence, except: audiencePlatforms))
                )
                .orderBy(installation)
            }
        // Counted as written, rather than by reading the chunk's range back through a key by installation.
        let count: Int
        if !db.dialect.modifiesRowsInsideWith {
            // SQLite cannot insert inside a `WITH`; `changes()` counts the connection's last statement.
            try await insert.run()
            count = try await db.raw("SELECT changes() AS n").first()!.int("n")
        } else {
            count = try await db.raw("WITH written AS (\(insert.returning("id").query)) SELECT COUNT(*) AS n FROM written").first()!.int("n")
        }
        try await SQLOutbox.tallyWritten(count, of: id, in: db)
        if inSequence, count > 0 { try await SQLOutbox.openSequence(of: id, in: db) }
        return count
    }

    /// Whether a delivery is written into its notification's sequence: not on a platform whose hub sends to whole
    /// audiences.
    static func inSequence(_ inSequence: Bool, except audiencePlatforms: Set<Platform>) -> any SQLExpression {
        guard inSequence, !audiencePlatforms.isEmpty else { return SQLLiteral.boolean(inSequence) }
        return SQLBinaryExpression(
            SQLColumn("platform", table: "i"), .notIn, SQLGroupExpression(audiencePlatforms.map(\.rawValue).sorted().map { SQLBind($0) }))
    }

    /// The installation id that ends a chunk of `size` candidates of `audience` after `after`, nil when fewer remain
    /// (the chunk then runs to the end). The candidates are the installations with one of the tags the audience
    /// requires, or every live one when it requires none; with several tags a chunk ends at the nearest of their
    /// ends, so it holds at most `size` of each.
    ///
    /// Found by stepping `size` entries into an index, in order: a chunk costs its own size, whatever is left after
    /// it. A `LIMIT` on the chunk's insert instead had SQLite gather every candidate left before taking the first
    /// `size`, 0.15 s of its one writer for each chunk at the start of a million.
    static func chunkEnd(of audience: TagExpression, after: String?, size: Int, in db: any SQLDatabase) async throws -> String? {
        func nth(_ column: String, of query: SQLSelectBuilder) async throws -> String? {
            let remaining = after.map { query.where(column, .greaterThan, $0) } ?? query
            return try await remaining.orderBy(column).limit(1).offset(size - 1).first()?.string(column)
        }
        guard let required = audience.requiredTags else {
            return try await nth("id", of: db.select().column("id").from("installations").where("dead_at", .is, SQLLiteral.null))
        }
        var ends: [String] = []
        for tag in required.sorted() {
            let tagged = db.select().column("installation_id").from("installation_tags").where("tag", .equal, tag)
            if let end = try await nth("installation_id", of: tagged) { ends.append(end) }
        }
        return ends.min()
    }

    /// Gives every recipient of notification `id` an unread feed entry: the owners of the installations it addresses
    /// (whose deliveries may not all be written yet) and the users the audience names.
    static func insertFeedEntries(notificationId id: Int64, audience: TagExpression, now: Date, in db: any SQLDatabase) async throws {
        let owners = Self.addressed(by: audience, SQLSubqueryBuilder().column(SQLColumn("owner", table: "i"), as: "username"))
        try await db.insert(into: "feed_entries")
            .columns("notification_id", "username", "read_state", "user_action_state", "updated_at")
            .select { select in
                select.column(SQLBind(id)).column("username").column(SQLBind(ReadState.unread.rawValue))
                    .column(SQLBind(UserActionState.noInteraction.rawValue)).column(SQLBind(EpochMilliseconds(now)))
                    .from(SQLAlias(SQLGroupExpression(Self.recipients(owners: owners.select, audience: audience)), as: SQLIdentifier("recipients")))
                    .orderBy("username")
            }
            .run()
    }

    /// Restricts `select` to the live installations (table alias `i`) whose tags satisfy `audience`, those with an id
    /// after `after` and up to `through` when given.
    ///
    /// Installations are looked up by tag when the expression needs one of a few tags; only an expression more
    /// complex than a choice of tags is then evaluated on each candidate.
    static func addressed<Select: SQLSubqueryClauseBuilder>(
        by audience: TagExpression, after: String? = nil, through: String? = nil, _ select: Select
    ) -> Select {
        let installation = SQLColumn("id", table: "i")
        _ = select.from(SQLAlias(SQLIdentifier("installations"), as: SQLIdentifier("i")))
            .where(SQLColumn("dead_at", table: "i"), .is, SQLLiteral.null)
        if let required = audience.requiredTags {
            _ = select.where(
                installation, .in,
                SQLSubquery.select { tagged in
                    var subquery = tagged.column("installation_id").from("installation_tags").where("tag", .in, required.sorted())
                    if let after { subquery = subquery.where("installation_id", .greaterThan, after) }
                    if let through { subquery = subquery.where("installation_id", .lessThanOrEqual, through) }
                    return subquery
                })
        }
        if let after { _ = select.where(installation, .greaterThan, SQLBind(after)) }
        if let through { _ = select.where(installation, .lessThanOrEqual, SQLBind(through)) }
        if audience.requiredTags == nil || !audience.isPureDisjunction {
            _ = select.where(audience.sqlPredicate(installation: installation, appVersionKey: SQLColumn("app_version_key", table: "i")))
        }
        return select
    }

    /// The usernames (one column, `username`, no repeats) of the owners `owners` selects and of the users the
    /// audience names with `username:` who are addressed even without a device, so the payload and the feed entry
    /// wait for them when they register.
    static func recipients(owners: SQLSelect, audience: TagExpression) -> any SQLExpression {
        let named = audience.tags.filter { $0.hasPrefix("username:") && audience.matches([$0]) }
            .map { String($0.dropFirst("username:".count)) }.sorted()
        guard !named.isEmpty else {
            return SQLQueryString("SELECT DISTINCT \(ident: "username") FROM (\(owners)) AS \(ident: "owners")")
        }
        let users = SQLSubqueryBuilder().column("username").from("users").where("username", .in, named)
        return SQLQueryString("\(owners) UNION \(users.select)")
    }
}

extension TagExpression {
    /// SQL that holds for the installation whose id is `installation` exactly when ``matches(_:)`` holds for its tags:
    /// tags are looked up in `installation_tags`, app versions compared as the sortable text `appVersionKey`.
    func sqlPredicate(installation: any SQLExpression, appVersionKey: any SQLExpression) -> any SQLExpression {
        func recurse(_ expression: TagExpression) -> any SQLExpression {
            expression.sqlPredicate(installation: installation, appVersionKey: appVersionKey)
        }
        switch self {
        case .tag(let tag):
            return SQLQueryString(
                "EXISTS (SELECT 1 FROM \(ident: "installation_tags") AS \(ident: "t") WHERE \(ident: "t").\(ident: "installation_id") = \(installation) AND \(ident: "t").\(ident: "tag") = \(bind: tag))"
            )
        case .appVersion(let comparison):
            // Padded to equal widths, version keys compare alike in every collation; no version matches nothing.
            return SQLQueryString(
                "(\(appVersionKey) IS NOT NULL AND \(appVersionKey) \(unsafeRaw: comparison.op.sql) \(bind: comparison.version.sortKey))")
        case .not(let inner):
            return SQLQueryString("NOT (\(recurse(inner)))")
        case .and(let left, let right):
            return SQLQueryString("(\(recurse(left)) AND \(recurse(right)))")
        case .or(let left, let right):
            return SQLQueryString("(\(recurse(left)) OR \(recurse(right)))")
        }
    }
}

extension VersionComparison.Operator {
    var sql: String {
        switch self {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        case .equal: "="
        }
    }
}
