import SQLKit

extension Migrations {
    /// A notification's outbox written in chunks after it: `outbox_through` names the installation through which it
    /// is written while more are to come (empty before the first; null once the outbox is whole), and
    /// `outbox_claimed_at` when a process last wrote a chunk of it, so another completes an outbox whose writer died.
    static func addOutboxChunks(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "notifications").column("outbox_through", type: .text).run()
        try await db.alter(table: "notifications").column("outbox_claimed_at", type: .bigint).run()
        try await db.raw("CREATE INDEX notifications_outbox_unfinished ON notifications (outbox_claimed_at) WHERE outbox_through IS NOT NULL")
            .run()
        // A chunk finds the installations of a tag after the last one written in order, in one range of this index.
        try await db.drop(index: "installation_tags_tag").run()
        try await db.create(index: "installation_tags_tag_installation").on("installation_tags").column("tag").column("installation_id").run()
    }
}

extension Migrations {
    /// A claim takes the pending deliveries in `(due_at, id)` order. SQLite's index ends with the row id already;
    /// PostgreSQL's did not, so it read every pending delivery due at the same millisecond (a whole campaign) and
    /// sorted them on each claim, a cost that grew with the outbox. With `id` in the index a claim reads its rows
    /// in order and stops at its limit. Half of each new page is left free, so a claim's lease, which changes no
    /// indexed column, is mostly written beside its row (a HOT update) rather than in another page with new index
    /// entries: a claim of 1,000 in the middle of a fan-out took 6 ms instead of 11 (a tenth free: 11 ms; 30% free:
    /// also 11; 70% free: 6), for an outbox twice the size on disk.
    static func orderPendingDeliveriesById(_ db: any SQLDatabase) async throws {
        guard db.dialect.name != "sqlite" else { return }
        try await db.drop(index: "deliveries_pending_due").run()
        try await db.raw("CREATE INDEX deliveries_pending_due ON deliveries (due_at, id) WHERE state = 'pending'").run()
        try await db.raw("ALTER TABLE deliveries SET (fillfactor = 50)").run()
    }
}

extension Migrations {
    /// A notification's results are paged by delivery id. Without an index that orders a notification's deliveries by
    /// id, SQLite read every delivery of the notification and sorted them for each page of 1,000: 60 ms a page for a
    /// million, a minute for the whole export. SQLite's index ends with the row id, so one on `notification_id` alone
    /// serves the page in order. PostgreSQL plans the page from its statistics instead, refreshed once an outbox is
    /// whole (`DatabaseEngine.refreshStatistics(of:)`), where another index would cost every delivery two more writes.
    static func pageDeliveriesByNotification(_ db: any SQLDatabase) async throws {
        guard db.dialect.name == "sqlite" else { return }
        try await db.create(index: "deliveries_by_notification").on("deliveries").column("notification_id").run()
    }
}

extension Migrations {
    /// PostgreSQL checks a foreign key with a trigger per row, which locked the notification's row once for each of
    /// its deliveries: 2.6 µs of the 7.4 µs an outbox row took to write. Deliveries are written only by the
    /// transaction that writes or locks their notification, and notifications are never deleted, so the key guarded
    /// nothing those writes could break. SQLite checks it within the insert at little cost and cannot drop it.
    static func writeOutboxesWithoutAForeignKeyCheck(_ db: any SQLDatabase) async throws {
        guard db.dialect.name != "sqlite" else { return }
        try await db.raw("ALTER TABLE deliveries DROP CONSTRAINT deliveries_notification_id_fkey").run()
    }
}

extension Migrations {
    /// A claim asks of each delivery whether a hub reported its device gone; the few dead installations get an index
    /// of their own, so the answer for a live one is a miss in a small index rather than a row of the whole table.
    static func indexDeadInstallations(_ db: any SQLDatabase) async throws {
        try await db.raw("CREATE INDEX installations_dead ON installations (id) WHERE dead_at IS NOT NULL").run()
    }
}

extension Migrations {
    /// Each notification's deliveries counted by state (see `SQLOutbox.tallyWritten`), so a status reads these rows
    /// rather than counting the outbox. The outboxes already written are counted once here.
    static func tallyDeliveries(_ db: any SQLDatabase) async throws {
        try await db.create(table: "delivery_tallies")
            .column("notification_id", type: .bigint, .notNull)
            .column("state", type: .text, .notNull)
            .column("count", type: .bigint, .notNull)
            .run()
        try await db.create(index: "delivery_tallies_by_notification").on("delivery_tallies").column("notification_id").run()
        try await db.raw(
            """
            INSERT INTO delivery_tallies (notification_id, state, count)
            SELECT notification_id, state, COUNT(*) FROM deliveries GROUP BY notification_id, state
            """
        ).run()
    }
}

extension Migrations {
    /// The status reads its counts from the tallies, so of the finished deliveries only the failures it lists need an
    /// index: a sent delivery no longer writes an entry into an index of every finished one, which cost each outcome
    /// an index insertion on top of the row's own.
    static func indexFailuresOnly(_ db: any SQLDatabase) async throws {
        try await db.drop(index: "deliveries_finished_by_notification").run()
        try await db.raw("CREATE INDEX deliveries_failures ON deliveries (notification_id, id) WHERE state IN ('failed', 'expired')").run()
    }
}

extension Migrations {
    /// A finished delivery leaves its row for a new one (its state is in the pending index's condition), so every
    /// outcome writes an entry into each index of the outbox. PostgreSQL's `(notification_id, installation_id)` key
    /// compared text and looked for a duplicate on each: 4.9 µs an outcome against 4.1 with an index on the
    /// notification and the delivery's id, which also serves a notification's results in id order. The outbox's chunks
    /// are written under their notification's row lock, each after the installation where the last one ended, so
    /// no installation gets two deliveries of one notification without the key. SQLite keeps the key: it cannot drop
    /// it without rebuilding the table, and its own `deliveries_by_notification` pages the results already.
    static func keyDeliveriesByNotification(_ db: any SQLDatabase) async throws {
        guard db.dialect.name != "sqlite" else { return }
        try await db.raw("ALTER TABLE deliveries DROP CONSTRAINT deliveries_notification_id_installation_id_key").run()
        try await db.create(index: "deliveries_by_notification").on("deliveries").column("notification_id").column("id").run()
    }
}

extension Migrations {
    /// PostgreSQL's outbox had two keys of each row: the id, and `deliveries_by_notification`. Each is an entry to
    /// write when a delivery is written and again when it finishes, since its state is in the pending index's
    /// condition and its row is copied. One key, `(notification_id, id)`, serves both: every statement that names
    /// deliveries names their notifications too, and the claim reaches its rows where they lie. Alone in SQL on an
    /// outbox of 100,000: 5.1 µs a row written against 5.9, 3.8 µs an outcome against 5.5. SQLite's rows are stored
    /// by id, which costs it no index.
    static func keyDeliveriesByNotificationAndId(_ db: any SQLDatabase) async throws {
        guard db.dialect.name != "sqlite" else { return }
        try await db.raw("ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey").run()
        try await db.drop(index: "deliveries_by_notification").run()
        try await db.raw("ALTER TABLE deliveries ADD PRIMARY KEY (notification_id, id)").run()
    }
}

extension Migrations {
    /// Installation ids are compared byte by byte on PostgreSQL, as SQLite compares them, whatever the database's
    /// locale: a language's collation is for words people read, not for keys, and it ordered ids unlike SQLite. It
    /// also cost the outbox's writer, which joins and sorts installation ids: 5.0 µs a row written under ICU's `en-US`
    /// and 4.7 under `C.UTF-8`, against 4.0 byte by byte. Every column that holds installation ids changes at once,
    /// since PostgreSQL cannot compare two of different collations. The tables are not rewritten; the indexes on these
    /// columns are rebuilt.
    static func compareInstallationIdsByteByByte(_ db: any SQLDatabase) async throws {
        guard db.dialect.name != "sqlite" else { return }
        let columns = [
            ("installation_tags", "installation_id"), ("installations", "id"), ("deliveries", "installation_id"),
            ("receipts", "installation_id"), ("events", "installation_id"), ("hub_mirror", "installation_id"),
            ("state_pushes", "installation_id"),
        ]
        for (table, column) in columns {
            try await db.raw("ALTER TABLE \(ident: table) ALTER COLUMN \(ident: column) TYPE text COLLATE \"C\"").run()
        }
    }
}

extension Migrations {
    /// A campaign's first attempts are claimed in its notification's sequence on PostgreSQL
    /// (``SQLOutbox/claimSequences(upTo:audiencePlatforms:withZones:in:)``): a row written `in_sequence` is taken by a range
    /// of its notification's ids, leased by one row in `sequence_claims` for the range, and enters the pending index only
    /// if it has to wait on its own (a retry, quiet hours, a lapsed claim). `delivery_sequences` holds each
    /// notification's claimed-through id while rows of it remain to be claimed. Alone in SQL on an outbox of 100,000, a
    /// push cost 10.3 µs against 13.5 and wrote 472 bytes of log against 715: no index entry when written, no row
    /// written when claimed. SQLite's claims hold their rows in memory already; it has the column, always false, and
    /// the tables, always empty.
    static func claimFirstAttemptsBySequence(_ db: any SQLDatabase) async throws {
        try await db.raw("ALTER TABLE deliveries ADD COLUMN in_sequence boolean NOT NULL DEFAULT false").run()
        try await db.create(table: "delivery_sequences")
            .column("notification_id", type: .bigint, .primaryKey(autoIncrement: false))
            .column("claimed_through", type: .bigint, .notNull)
            .run()
        try await db.create(table: "sequence_claims")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("notification_id", type: .bigint, .notNull)
            .column("first_id", type: .bigint, .notNull)
            .column("last_id", type: .bigint, .notNull)
            .column("lease_until", type: .bigint, .notNull)
            .run()
        try await db.create(index: "sequence_claims_lease").on("sequence_claims").column("lease_until").run()
        guard db.dialect.name != "sqlite" else { return }
        try await db.drop(index: "deliveries_pending_due").run()
        try await db.raw("CREATE INDEX deliveries_pending_due ON deliveries (due_at, id) WHERE state = 'pending' AND NOT in_sequence").run()
    }
}
