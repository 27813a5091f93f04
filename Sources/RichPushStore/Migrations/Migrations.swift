import Foundation
public import RichPushCore
import SQLKit

/// The schema, as an ordered list of steps; each runs once, in its own transaction, recorded in `schema_migrations`.
///
/// Times are integer milliseconds since 1970 and flags are nullable times, so both engines store them alike.
enum Migrations {
    typealias Step = @Sendable (any SQLDatabase) async throws -> Void

    static let steps: [Step] = [
        createInitialSchema, createHubMirror, createEventCounter, createSignInFailures, indexDeliveriesByNotificationState,
        narrowOutboxIndexes, foldUsernamesForUniqueness, keepReplacedInstallations, addCampaignContent, createTemplates,
        addDeviceFieldTags, addLocalDelivery, addCampaignLimits, addVariants, addFeedRemovals, addSegments,
        createAPITokens, createAuditTrail, createStatePushes, addOutboxChunks, orderPendingDeliveriesById, pageDeliveriesByNotification,
        writeOutboxesWithoutAForeignKeyCheck, indexDeadInstallations, tallyDeliveries, indexFailuresOnly, keyDeliveriesByNotification,
        keyDeliveriesByNotificationAndId, compareInstallationIdsByteByByte, claimFirstAttemptsBySequence, createWebhooks, addFallbacks,
        recordFetchesPerInstallation, addPacing, indexPendingFallbacksByOwner, addActions, createLiveActivities, keepActivityStartAlerts,
    ]

    /// Brings the schema up to date, or up to version `last` (tests of an upgrade stop there first).
    static func run(on engine: some DatabaseEngine, through last: Int = steps.count) async throws {
        try await engine.withMigrationLock { try await runSteps(on: engine, through: last) }
    }

    private static func runSteps(on engine: some DatabaseEngine, through last: Int) async throws {
        try await engine.transaction { db in
            try await db.create(table: "schema_migrations").ifNotExists()
                .column("version", type: .bigint, .primaryKey(autoIncrement: false))
                .column("applied_at", type: .bigint, .notNull)
                .run()
        }
        for (index, step) in steps.prefix(last).enumerated() {
            let version = index + 1
            try await engine.transaction { db in
                let applied = try await db.select().column("version").from("schema_migrations")
                    .where("version", .equal, version).first()
                guard applied == nil else { return }
                try await step(db)
                try await db.insert(into: "schema_migrations").columns("version", "applied_at")
                    .values(version, EpochMilliseconds(.now)).run()
            }
        }
    }

    private static func createInitialSchema(_ db: any SQLDatabase) async throws {
        try await db.create(table: "users")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("username", type: .text, .notNull, .unique)
            .column("password_hash", type: .text, .notNull)
            .column("role", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "settings")
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("value", type: .text, .notNull)
            .run()

        try await db.create(table: "counters")
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("value", type: .bigint, .notNull)
            .run()
        try await db.insert(into: "counters").columns("name", "value").values("feed", 0).run()

        try await db.create(table: "images")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("sha256", type: .text, .notNull, .unique)
            .column("content_type", type: .text, .notNull)
            .column("width", type: .bigint, .notNull)
            .column("height", type: .bigint, .notNull)
            .column("byte_count", type: .bigint, .notNull)
            .column("data", type: .blob, .notNull)
            .column("created_by", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "notifications")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("message", type: .text, .notNull)
            .column("rich_type", type: .text, .notNull)
            .column("image_id", type: .bigint, .references("images", "id"))
            .column("url", type: .text)
            .column("text_body", type: .text)
            .column("audience", type: .text, .notNull)
            .column("push_style", type: .text, .notNull)
            .column("created_by", type: .text, .notNull)
            .column("idempotency_key", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("deliver_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint)
            .column("released_at", type: .bigint)
            .column("canceled_at", type: .bigint)
            .column("deleted_at", type: .bigint)
            .unique("created_by", "idempotency_key")
            .run()
        try await db.create(index: "notifications_unreleased").on("notifications").column("released_at").column("deliver_at").run()

        try await installationColumns(db.create(table: "installations"))
            .unique("platform", "push_channel")
            .run()
        try await db.create(index: "installations_owner").on("installations").column("owner").run()

        try await db.create(table: "installation_tags")
            .column("installation_id", type: .text, .notNull, .references("installations", "id", onDelete: .cascade))
            .column("tag", type: .text, .notNull)
            .primaryKey("installation_id", "tag")
            .run()
        try await db.create(index: "installation_tags_tag").on("installation_tags").column("tag").run()

        try await db.create(table: "deliveries")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("notification_id", type: .bigint, .notNull, .references("notifications", "id"))
            .column("installation_id", type: .text, .notNull)
            .column("owner", type: .text, .notNull)
            .column("platform", type: .text, .notNull)
            .column("push_channel", type: .text, .notNull)
            .column("state", type: .text, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("due_at", type: .bigint, .notNull)
            .column("lease_until", type: .bigint)
            .column("finished_at", type: .bigint)
            .column("error_code", type: .text)
            .column("error_message", type: .text)
            .unique("notification_id", "installation_id")
            .run()
        try await db.create(index: "deliveries_due").on("deliveries").column("state").column("due_at").run()

        try await db.create(table: "feed_entries")
            .column("notification_id", type: .bigint, .notNull, .references("notifications", "id"))
            .column("username", type: .text, .notNull)
            .column("read_state", type: .text, .notNull)
            .column("user_action_state", type: .text, .notNull)
            .column("seq", type: .bigint)
            .column("fetched_at", type: .bigint)
            .column("updated_at", type: .bigint, .notNull)
            .primaryKey("notification_id", "username")
            .run()
        try await db.create(index: "feed_entries_user_seq").on("feed_entries").column("username").column("seq").run()

        try await db.create(table: "receipts")
            .column("notification_id", type: .bigint, .notNull, .references("notifications", "id"))
            .column("installation_id", type: .text, .notNull)
            .column("event", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("notification_id", "installation_id", "event")
            .run()

        try await db.create(table: "events")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("username", type: .text, .notNull)
            .column("installation_id", type: .text)
            .column("kind", type: .text, .notNull)
            .column("rich_id", type: .bigint, .notNull)
            .column("data", type: .text, .notNull)
            .column("dedupe_key", type: .text, .unique)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "events_user").on("events").column("username").column("id").run()
    }

    /// The columns of `installations`, as the first schema made them and its rebuild keeps them.
    private static func installationColumns(_ table: SQLCreateTableBuilder) -> SQLCreateTableBuilder {
        table
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("owner", type: .text, .notNull)
            .column("platform", type: .text, .notNull)
            .column("push_channel", type: .text, .notNull)
            .column("tags", type: .text, .notNull)
            .column("app_version", type: .text)
            .column("application_name", type: .text)
            .column("sdk_version", type: .text)
            .column("time_zone", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("dead_at", type: .bigint)
            .column("dead_reason", type: .text)
    }

    /// Installations waiting to be copied to (or removed from) a remote hub's registrations: one row per installation,
    /// whose `version` grows with each change so a sync that raced a newer change does not remove it.
    private static func createHubMirror(_ db: any SQLDatabase) async throws {
        try await db.create(table: "hub_mirror")
            .column("installation_id", type: .text, .primaryKey(autoIncrement: false))
            .column("version", type: .bigint, .notNull)
            .column("due_at", type: .bigint, .notNull)
            .column("attempts", type: .bigint, .notNull)
            .column("error", type: .text)
            .run()
        try await db.create(index: "hub_mirror_due").on("hub_mirror").column("due_at").run()
    }

    /// Event ids come from a counter from now on, so they are handed out in commit order on every engine; it goes on
    /// from the events already there.
    private static func createEventCounter(_ db: any SQLDatabase) async throws {
        let last =
            try await db.select().column(SQLFunction("MAX", args: SQLIdentifier("id")), as: "id").from("events").first()?
            .decode(column: "id", as: Int64?.self) ?? 0
        try await db.insert(into: "counters").columns("name", "value").values("events", last).run()
    }

    /// Failed sign-ins, one row per username or client address they count against, for a throttle that every
    /// gateway process sharing the store applies alike.
    private static func createSignInFailures(_ db: any SQLDatabase) async throws {
        try await db.create(table: "sign_in_failures")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("throttle_key", type: .text, .notNull)
            .column("failed_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "sign_in_failures_key").on("sign_in_failures").column("throttle_key").column("failed_at").run()
    }

    /// A notification's delivery funnel, read whenever its status is watched, counts from the index alone instead of
    /// reading every delivery row of a large campaign.
    private static func indexDeliveriesByNotificationState(_ db: any SQLDatabase) async throws {
        try await db.create(index: "deliveries_notification_state").on("deliveries").column("notification_id").column("state").run()
    }

    /// Each outbox index holds only the deliveries its queries look for: the pending ones by due time, and the
    /// finished ones by notification and state for the counts. A delivery going from pending to sent then leaves one
    /// and enters the other, instead of being removed from and inserted into both, which was half of what recording
    /// a fan-out's outcomes cost. Queries name `'pending'` as a literal, so the planners can match these indexes.
    private static func narrowOutboxIndexes(_ db: any SQLDatabase) async throws {
        try await db.drop(index: "deliveries_due").run()
        try await db.drop(index: "deliveries_notification_state").run()
        try await db.raw("CREATE INDEX deliveries_pending_due ON deliveries (due_at) WHERE state = 'pending'").run()
        try await db.raw(
            "CREATE INDEX deliveries_finished_by_notification ON deliveries (notification_id, state) WHERE state <> 'pending'"
        ).run()
    }

    /// `Bob` and `bob` cannot both be users: a person reads them as one name (and as one `username:` tag). Usernames
    /// are ASCII, which `lower` folds alike on both engines.
    private static func foldUsernamesForUniqueness(_ db: any SQLDatabase) async throws {
        try await db.raw("CREATE UNIQUE INDEX users_username_folded ON users (lower(username))").run()
    }

    /// An installation whose hub-issued channel another user registered stays, marked replaced, instead of being
    /// deleted: the channel is unique among the installations that still hold theirs
    /// (``SQLInstallationRepository/holdsItsChannel``), no longer among all.
    private static func keepReplacedInstallations(_ db: any SQLDatabase) async throws {
        if db.dialect.name == "sqlite" {
            // SQLite cannot drop a table's UNIQUE constraint: the table is made again without it, as SQLite's
            // documentation describes for changes ALTER TABLE cannot make. Dropping the old table deletes the tags
            // through their foreign key's cascade, so they are kept aside and put back.
            try await db.raw("CREATE TEMPORARY TABLE kept_installation_tags AS SELECT installation_id, tag FROM installation_tags").run()
            try await installationColumns(db.create(table: "installations_rebuilt")).run()
            let columns = [
                "id", "owner", "platform", "push_channel", "tags", "app_version", "application_name", "sdk_version", "time_zone",
                "created_at", "updated_at", "dead_at", "dead_reason",
            ]
            try await db.raw(
                "INSERT INTO installations_rebuilt (\(idents: columns, joinedBy: ", ")) SELECT \(idents: columns, joinedBy: ", ") FROM installations"
            ).run()
            try await db.raw("DROP TABLE installations").run()
            try await db.raw("ALTER TABLE installations_rebuilt RENAME TO installations").run()
            try await db.raw("INSERT INTO installation_tags (installation_id, tag) SELECT installation_id, tag FROM kept_installation_tags").run()
            try await db.raw("DROP TABLE kept_installation_tags").run()
            try await db.create(index: "installations_owner").on("installations").column("owner").run()
        } else {
            let constraints = try await db.raw(
                "SELECT conname FROM pg_constraint WHERE conrelid = 'installations'::regclass AND contype = 'u'"
            ).all().map { try $0.decode(column: "conname", as: String.self) }
            for name in constraints {
                try await db.raw("ALTER TABLE installations DROP CONSTRAINT \(ident: name)").run()
            }
        }
        try await db.raw(
            "CREATE UNIQUE INDEX installations_live_channel ON installations (platform, push_channel) WHERE \(SQLInstallationRepository.holdsItsChannel)"
        ).run()
    }

    /// A notification's visible fields, data and localizations (JSON of `PushContent`, null when it has none); each
    /// installation's language, copied into its deliveries so a claim picks each device's variant without a join.
    private static func addCampaignContent(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("content", type: .text).run()
        try await db.alter(table: "installations").column("language", type: .text).run()
        try await db.alter(table: "deliveries").column("language", type: .text).run()
    }

    /// Templates, every version kept (a notification names the one it came from), and that name on notifications.
    private static func createTemplates(_ db: any SQLDatabase) async throws {
        try await db.create(table: "templates")
            .column("name", type: .text, .notNull)
            .column("version", type: .bigint, .notNull)
            .column("description", type: .text)
            .column("fields", type: .text, .notNull)
            .column("created_by", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("name", "version")
            .run()
        try await db.alter(table: "notifications").column("template_name", type: .text).run()
        try await db.alter(table: "notifications").column("template_version", type: .bigint).run()
    }

    /// Installations carry `language:`, `timezone:` and `appversion:` tags from their fields, and their app version
    /// as text that sorts as versions do, for `appVersion >= 2.3` in audiences. Those registered before get theirs.
    private static func addDeviceFieldTags(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "installations").column("app_version_key", type: .text).run()
        let rows = try await db.select().columns("id", "language", "time_zone", "app_version").from("installations")
            .where {
                $0.where("language", .isNot, SQLLiteral.null).orWhere("time_zone", .isNot, SQLLiteral.null)
                    .orWhere("app_version", .isNot, SQLLiteral.null)
            }
            .all()
        for row in rows {
            let id = try row.decode(column: "id", as: String.self)
            let appVersion = try row.decode(column: "app_version", as: String?.self)
            let tags = Tag.deviceFields(
                language: try row.decode(column: "language", as: String?.self), timeZone: try row.decode(column: "time_zone", as: String?.self),
                appVersion: appVersion)
            if !tags.isEmpty {
                try await db.insert(into: "installation_tags").columns("installation_id", "tag")
                    .rows(tags.map { [SQLBind(id), SQLBind($0)] }).ignoringConflicts().run()
            }
            if let key = appVersion.flatMap(AppVersion.init(parsing:))?.sortKey {
                try await db.update("installations").set("app_version_key", to: key).where("id", .equal, id).run()
            }
        }
    }

    /// A notification delivered at a wall-clock time in each device's zone keeps that time, and the distinct instants
    /// its deliveries fall due (a JSON array of milliseconds), so its status names the next one without a scan.
    private static func addLocalDelivery(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("deliver_at_local", type: .text).run()
        try await db.alter(table: "notifications").column("due_times", type: .text).run()
    }

    /// Whether a notification is a marketer's (held to the frequency cap and quiet hours) rather than a member's own
    /// or an admin's transactional one, read from its sender's role for those sent before; and, per user, the
    /// marketers' notifications that reached them lately, which the cap counts.
    private static func addCampaignLimits(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("purpose", type: .text, .notNull, .default(SQLLiteral.string("transactional")))
            .run()
        try await db.update("notifications").set("purpose", to: NotificationPurpose.marketing.rawValue)
            .where(
                "created_by", .in,
                SQLSubquery.select {
                    $0.column("username").from("users").where("role", .in, [Role.marketer.rawValue, Role.admin.rawValue])
                }
            )
            .run()
        try await db.create(table: "frequency_counts")
            .column("owner", type: .text, .notNull)
            .column("notification_id", type: .bigint, .notNull)
            .column("counted_at", type: .bigint, .notNull)
            .primaryKey("owner", "notification_id")
            .run()
    }

    /// A notification's A/B variants (JSON of `[Variant]`, null when it has none) and the one each recipient was
    /// assigned, on its deliveries (which push they get) and its feed entry (which message its feed shows).
    private static func addVariants(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("variants", type: .text).run()
        try await db.alter(table: "deliveries").column("variant", type: .text).run()
        try await db.alter(table: "feed_entries").column("variant", type: .text).run()
    }

    /// When a user removed a notification from their own feed (`DELETE /api/me/notifications/{id}`); the entry stays,
    /// so the user remains a recipient whose payload is readable until it expires.
    private static func addFeedRemovals(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "feed_entries").column("removed_at", type: .bigint).run()
    }

    /// A user's segments (protected tags only marketers and admins assign, JSON of `[String]`), and a copy on each of
    /// the user's installations so reading one needs no join.
    private static func addSegments(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "users").column("segments", type: .text).run()
        try await db.alter(table: "installations").column("segments", type: .text).run()
    }
}
