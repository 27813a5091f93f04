public import Foundation
public import RichPushCore
import SQLKit

/// The feeds in the `feed_entries` table.
public struct SQLFeedRepository: FeedRepository {
    let engine: any DatabaseEngine

    public func items(username: String, since: Int64?, limit: Int, now: Date = .now) async throws -> (items: [FeedItem], cursor: Int64) {
        try await engine.read { db in
            var query = Self.visibleFeed(of: username, in: db, now: now)
                .columns(Self.itemColumns)
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

    public func updateState(
        username: String, notificationId: Int64, readState: ReadState?, userActionState: UserActionState?, action pressed: String? = nil,
        origin: String? = nil, now: Date = .now
    ) async throws -> (item: FeedItem, eventCursor: Int64?)? {
        try await engine.transaction { db in
            guard let current = try await Self.feedItem(username: username, notificationId: notificationId, in: db, now: now) else {
                return nil
            }
            return try await change(
                current, of: username, readState: readState, userActionState: userActionState, action: pressed, origin: origin, now: now,
                in: db)
        }
    }

    public func beginActionRun(username: String, notificationId: Int64, action: String, origin: String?, now: Date = .now) async throws
        -> (item: FeedItem, eventCursor: Int64?, run: Bool)?
    {
        try await engine.transaction { db in
            guard let current = try await Self.feedItem(username: username, notificationId: notificationId, in: db, now: now) else {
                return nil
            }
            // The run's row is its claim: of two presses at once, in one process or two, one inserts it.
            let run =
                try await db.insert(into: "action_runs").columns("notification_id", "username", "action_id", "status", "created_at")
                .values(notificationId, username, action, -1, EpochMilliseconds(now))
                .ignoringConflicts(with: ["notification_id", "username", "action_id"]).returning("action_id").first() != nil
            let (item, cursor) = try await change(
                current, of: username, readState: .read, userActionState: .activated, action: action, origin: origin, now: now, in: db)
            return (item, cursor, run)
        }
    }

    public func recordActionStatus(username: String, notificationId: Int64, action: String, status: Int) async throws {
        try await engine.transaction { db in
            try await db.update("action_runs").set("status", to: status).where("notification_id", .equal, notificationId)
                .where("username", .equal, username).where("action_id", .equal, action).run()
        }
    }

    /// Changes `current`'s states and pressed button as ``updateState(username:notificationId:readState:userActionState:action:origin:now:)``
    /// describes, in `db`'s transaction.
    private func change(
        _ current: FeedItem, of username: String, readState: ReadState?, userActionState: UserActionState?, action pressed: String?,
        origin: String?, now: Date, in db: any SQLDatabase
    ) async throws -> (item: FeedItem, eventCursor: Int64?) {
        let notificationId = current.id
        let read = readState ?? current.readState
        let action = userActionState ?? current.userActionState
        let button = pressed ?? current.action
        guard read != current.readState || action != current.userActionState || button != current.action else { return (current, nil) }
        let seq = try await SQLNotificationRepository.reserveFeedSequence(count: 1, in: db)
        var update = db.update("feed_entries").set("read_state", to: read.rawValue).set("user_action_state", to: action.rawValue)
            .set("seq", to: seq).set("updated_at", to: EpochMilliseconds(now))
        if button != current.action { update = update.set("action_id", to: button) }
        try await update.where("notification_id", .equal, notificationId).where("username", .equal, username).run()
        let event = StreamEvent(cursor: 0, body: .state(richId: notificationId, readState: read, userActionState: action))
        let cursor = try await SQLEventLog.appendEvents(event, usernames: [username], installationId: nil, now: now, engine: engine, in: db).first
        try await SQLStatePushQueue.enqueueStatePushes(
            .state(readState: read, userActionState: action), notificationId: notificationId, recipients: .user(username), except: origin,
            now: now, in: db)
        let told: WebhookEventType? =
            switch action {
            case .activated: .notificationOpened
            case .dismissed: .notificationDismissed
            case .noInteraction: nil
            }
        if let told, action != current.userActionState || button != current.action {
            try await WebhookSubscribers.read(in: db).enqueue(
                [
                    WebhookEventDraft(
                        type: told,
                        data: WebhookEventData(notificationId: notificationId, installationId: origin, username: username, action: pressed))
                ],
                now: now, in: db)
        }
        var item = current
        item.readState = read
        item.userActionState = action
        item.action = button
        item.seq = seq
        return (item, cursor)
    }

    public func remove(username: String, notificationId: Int64, origin: String? = nil, now: Date = .now) async throws -> Int64? {
        try await engine.transaction { db in
            guard try await Self.feedItem(username: username, notificationId: notificationId, in: db, now: now) != nil else {
                return nil
            }
            try await db.update("feed_entries").set("removed_at", to: EpochMilliseconds(now))
                .where("notification_id", .equal, notificationId).where("username", .equal, username).run()
            let event = StreamEvent(cursor: 0, body: .deleted(richId: notificationId))
            try await SQLStatePushQueue.enqueueStatePushes(
                .deleted, notificationId: notificationId, recipients: .user(username), except: origin, now: now, in: db)
            return try await SQLEventLog.appendEvents(event, usernames: [username], installationId: nil, now: now, engine: engine, in: db).first
        }
    }

    public func item(username: String, notificationId: Int64, now: Date = .now) async throws -> FeedItem? {
        try await engine.read { db in try await Self.feedItem(username: username, notificationId: notificationId, in: db, now: now) }
    }

    public func recordFetches(_ fetches: [PayloadFetch]) async throws {
        // The webhook events of a batch are dated by its latest fetch.
        guard let latest = fetches.map(\.at).max() else { return }
        try await engine.transaction { db in
            var first: [WebhookEventDraft] = []
            for fetch in fetches {
                guard let username = try await Self.recordInstallationFetch(fetch, in: db) ?? fetch.username else { continue }
                let changed = try await db.update("feed_entries").set("fetched_at", to: EpochMilliseconds(fetch.at))
                    .where("notification_id", .equal, fetch.notificationId).where("username", .equal, username)
                    .where("fetched_at", .is, SQLLiteral.null).returning("notification_id").first()
                if changed != nil {
                    try await SQLFallbackQueue.skipPending(
                        of: fetch.notificationId, owner: username, reason: "payload.fetched", now: fetch.at, in: db)
                    first.append(
                        WebhookEventDraft(
                            type: .payloadFetched, data: WebhookEventData(notificationId: fetch.notificationId, username: username)))
                }
            }
            try await WebhookSubscribers.read(in: db).enqueue(first, now: latest, in: db)
        }
    }

    public func recordReceipt(notificationId: Int64, installationId: String, event: ReceiptEvent, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            let recorded =
                try await db.insert(into: "receipts").columns("notification_id", "installation_id", "event", "created_at")
                .values(notificationId, installationId, event.rawValue, EpochMilliseconds(now))
                .ignoringConflicts(with: ["notification_id", "installation_id", "event"])
                .returning("notification_id").first() != nil
            let webhooks = try await WebhookSubscribers.read(in: db)
            if recorded, webhooks.wants(.notificationDisplayed) {
                let owner = try await db.select().column("owner").from("installations").where("id", .equal, installationId).first()
                let data = WebhookEventData(
                    notificationId: notificationId, installationId: installationId, username: try owner?.string("owner"))
                try await webhooks.enqueue([WebhookEventDraft(type: .notificationDisplayed, data: data)], now: now, in: db)
            }
            return recorded
        }
    }
}
