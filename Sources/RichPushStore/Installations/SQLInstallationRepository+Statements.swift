public import Foundation
public import RichPushCore
import SQLKit

extension SQLInstallationRepository {
    static let installationColumns = [
        "id", "owner", "platform", "push_channel", "tags", "app_version", "application_name", "sdk_version", "time_zone",
        "created_at", "updated_at", "dead_at", "dead_reason", "language", "app_version_key", "segments",
    ]

    /// True for the installations that hold their push channel: all but the replaced ones. The unique index on
    /// channels has this predicate, and queries for a channel's holder name it in the same words so that PostgreSQL
    /// uses that index.
    static let holdsItsChannel = SQLRaw("COALESCE(dead_reason, '') <> '\(InstallationRecord.replacedReason)'")

    /// How many new installations make an import a bulk write that the planner should hear of at once.
    static let bulkImport = 1_000

    /// Inserts a chunk of an import in bulk when every installation in it is new and no other installation holds
    /// its push channel; returns how many were created, or nil when the chunk needs ``upsert(_:mirrored:in:)`` one by
    /// one.
    static func insertNew(_ chunk: ArraySlice<InstallationRecord>, mirrored: Set<Platform>, in db: any SQLDatabase) async throws
        -> Int?
    {
        let taken = try await db.select().column("id").from("installations").where("id", .in, chunk.map(\.id)).first()
        guard taken == nil else { return nil }
        let holders = try await db.select().columns("platform", "push_channel").from("installations")
            .where("push_channel", .in, chunk.map(\.pushChannel)).where(Self.holdsItsChannel).all()
        let wanted = Set(chunk.map { ChannelKey(platform: $0.platform, pushChannel: $0.pushChannel) })
        for holder in holders {
            let key = ChannelKey(platform: try holder.enumeration("platform", as: Platform.self), pushChannel: try holder.string("push_channel"))
            if wanted.contains(key) { return nil }
        }
        let segments = try await Self.segments(of: Set(chunk.map(\.owner)), in: db)
        let records = chunk.map { record in
            var record = record
            record.segments = segments[record.owner] ?? []
            return record
        }
        try await db.insert(into: "installations").columns(Self.installationColumns)
            .rows(
                try records.map { record in
                    let tags = String(decoding: try JSONEncoder().encode(record.tags), as: UTF8.self)
                    return SQLNotificationRepository.binds(
                        record.id, record.owner, record.platform.rawValue, record.pushChannel, tags, record.appVersion,
                        record.applicationName, record.sdkVersion, record.timeZone, EpochMilliseconds(record.createdAt),
                        EpochMilliseconds(record.updatedAt), Int64?.none, String?.none, record.language, record.appVersionKey,
                        try Self.segmentsJSON(record.segments))
                }
            ).run()
        let tags = records.flatMap { record in record.allTags.sorted().map { SQLNotificationRepository.binds(record.id, $0) } }
        for rows in tags.chunked(SQLNotificationRepository.insertChunk) {
            try await db.insert(into: "installation_tags").columns("installation_id", "tag").rows(Array(rows)).run()
        }
        for record in chunk {
            try await SQLMirrorQueue.enqueueMirror(record.id, platforms: [record.platform], mirrored: mirrored, now: record.updatedAt, in: db)
        }
        return chunk.count
    }

    static func upsert(_ installation: InstallationRecord, mirrored: Set<Platform>, limit: Int?, in db: any SQLDatabase)
        async throws -> (record: InstallationRecord, created: Bool)
    {
        let existing = try await db.select().columns(Self.installationColumns).from("installations")
            .where("id", .equal, installation.id).first().map(Self.installationRecord)
        if let existing, existing.owner != installation.owner {
            throw StoreError.installationOwnedByAnother
        }
        let holders = try await db.select().columns("id", "owner").from("installations")
            .where("platform", .equal, installation.platform.rawValue)
            .where("push_channel", .equal, installation.pushChannel)
            .where("id", .notEqual, installation.id)
            .where(Self.holdsItsChannel)
            .all().map { (id: try $0.string("id"), owner: try $0.string("owner")) }
        for holder in holders {
            if holder.owner == installation.owner {
                _ = try await Self.deleteInstallation(holder.id, mirrored: mirrored, now: installation.updatedAt, in: db)
            } else if installation.platform.channelIsIssuedByHub {
                try await Self.markReplaced(holder.id, mirrored: mirrored, now: installation.updatedAt, in: db)
            } else {
                throw StoreError.channelTaken
            }
        }
        if existing == nil, let limit {
            try await Self.requireRoom(for: installation.owner, limit: limit, in: db)
        }
        var record = installation
        record.createdAt = existing?.createdAt ?? installation.createdAt
        record.deadAt = nil
        record.deadReason = nil
        record.segments = try await Self.segments(of: [installation.owner], in: db)[installation.owner] ?? []
        let tagsJSON = String(decoding: try JSONEncoder().encode(record.tags), as: UTF8.self)
        if existing == nil {
            try await db.insert(into: "installations").columns(Self.installationColumns)
                .values(
                    record.id, record.owner, record.platform.rawValue, record.pushChannel, tagsJSON, record.appVersion,
                    record.applicationName, record.sdkVersion, record.timeZone, EpochMilliseconds(record.createdAt),
                    EpochMilliseconds(record.updatedAt), Int64?.none, String?.none, record.language, record.appVersionKey,
                    try Self.segmentsJSON(record.segments)
                ).run()
        } else {
            try await db.update("installations")
                .set("platform", to: record.platform.rawValue)
                .set("push_channel", to: record.pushChannel)
                .set("tags", to: tagsJSON)
                .set("app_version", to: record.appVersion)
                .set("application_name", to: record.applicationName)
                .set("sdk_version", to: record.sdkVersion)
                .set("time_zone", to: record.timeZone)
                .set("language", to: record.language)
                .set("app_version_key", to: record.appVersionKey)
                .set("segments", to: try Self.segmentsJSON(record.segments))
                .set("updated_at", to: EpochMilliseconds(record.updatedAt))
                .set("dead_at", to: Int64?.none)
                .set("dead_reason", to: String?.none)
                .where("id", .equal, record.id).run()
            try await db.delete(from: "installation_tags").where("installation_id", .equal, record.id).run()
        }
        try await db.insert(into: "installation_tags").columns("installation_id", "tag")
            .rows(record.allTags.sorted().map { SQLNotificationRepository.binds(record.id, $0) }).run()
        let platforms = [existing?.platform, record.platform].compactMap { $0 }
        try await SQLMirrorQueue.enqueueMirror(record.id, platforms: platforms, mirrored: mirrored, now: record.updatedAt, in: db)
        return (record, existing == nil)
    }

    /// Throws ``StoreError/installationLimit(_:)`` when `owner` already has `limit` installations. The owner's user row
    /// is locked first (on engines that lock rows), so two registrations of one owner at once on two processes cannot
    /// both pass the count.
    static func requireRoom(for owner: String, limit: Int, in db: any SQLDatabase) async throws {
        _ = try await db.select().column("id").from("users").where("username", .equal, owner).for(.update).first()
        let count =
            try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("installations")
            .where("owner", .equal, owner).first()?.int("n") ?? 0
        guard count < limit else { throw StoreError.installationLimit(limit) }
    }

    /// Marks an installation replaced: another user's installation registered its hub-issued channel. It is sent
    /// nothing more, its outstanding deliveries fail, and a remote hub's copy of it is removed.
    static func markReplaced(_ id: String, mirrored: Set<Platform>, now: Date, in db: any SQLDatabase) async throws {
        let nowMs = EpochMilliseconds(now)
        let platform = try await db.update("installations").set("dead_at", to: nowMs)
            .set("dead_reason", to: InstallationRecord.replacedReason).set("updated_at", to: nowMs)
            .where("id", .equal, id).returning("platform").first().map { try $0.enumeration("platform", as: Platform.self) }
        guard let platform else { return }
        try await failPendingDeliveries(of: id, code: InstallationRecord.replacedReason, message: "another user registered the device", in: db)
        try await SQLActivityRepository.forget(installation: id, now: now, in: db)
        try await SQLMirrorQueue.enqueueMirror(id, platforms: [platform], mirrored: mirrored, now: now, in: db)
    }

    /// Ends the outstanding deliveries to an installation that can no longer receive them: those in notifications'
    /// sequences, looked for only where a sequence is still to be claimed or a claim of it is out, then those in the
    /// pending index. In that order, as a delivery can leave its sequence between the two statements but never enter
    /// one: the second statement's snapshot sees it out.
    static func failPendingDeliveries(of id: String, code: String, message: String, in db: any SQLDatabase) async throws {
        func failing() -> SQLUpdateBuilder {
            db.update("deliveries").set("error_code", to: code).set("error_message", to: message).where("installation_id", .equal, id)
        }
        let unsent = SQLRaw(
            """
            in_sequence AND EXISTS (SELECT 1 FROM (
                SELECT notification_id, claimed_through + 1 AS first_id, \(Int64.max) AS last_id FROM delivery_sequences
                UNION ALL SELECT notification_id, first_id, last_id FROM sequence_claims) AS r
            WHERE r.notification_id = deliveries.notification_id AND deliveries.id BETWEEN r.first_id AND r.last_id)
            """)
        try await SQLOutbox.finishPending(failing().where(unsent), as: .failed, in: db)
        try await SQLOutbox.finishPending(failing().where(SQLOutbox.outOfSequence), as: .failed, in: db)
    }

    static func deleteInstallation(_ id: String, mirrored: Set<Platform>, now: Date, in db: any SQLDatabase) async throws -> Bool {
        let platform = try await db.select().column("platform").from("installations").where("id", .equal, id).first()
            .map { try $0.enumeration("platform", as: Platform.self) }
        guard let platform else { return false }
        try await SQLMirrorQueue.enqueueMirror(id, platforms: [platform], mirrored: mirrored, now: now, in: db)
        try await db.delete(from: "installation_tags").where("installation_id", .equal, id).run()
        try await failPendingDeliveries(of: id, code: "installation.deleted", message: "the installation was deleted", in: db)
        try await db.delete(from: "state_pushes").where("installation_id", .equal, id).run()
        try await SQLActivityRepository.forget(installation: id, now: now, in: db)
        try await db.delete(from: "installations").where("id", .equal, id).run()
        return true
    }

    static func installationRecord(_ row: any SQLRow) throws -> InstallationRecord {
        let tags = try JSONDecoder().decode([String].self, from: Data(try row.string("tags").utf8))
        return InstallationRecord(
            id: try row.string("id"), owner: try row.string("owner"),
            platform: try row.enumeration("platform", as: Platform.self), pushChannel: try row.string("push_channel"),
            tags: tags, appVersion: try row.optionalString("app_version"),
            applicationName: try row.optionalString("application_name"), sdkVersion: try row.optionalString("sdk_version"),
            timeZone: try row.optionalString("time_zone"), language: try row.optionalString("language"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"), deadAt: try row.optionalDate("dead_at"),
            deadReason: try row.optionalString("dead_reason"), segments: try segments(row.optionalString("segments")))
    }
}

/// A push channel of one platform: unique among installations.
struct ChannelKey: Hashable {
    var platform: Platform
    var pushChannel: String
}

extension InstallationRecord {
    /// The app version as text that sorts as versions do, for comparisons in audiences; nil when it is not dotted
    /// numbers.
    var appVersionKey: String? { appVersion.flatMap(AppVersion.init(parsing:))?.sortKey }
}
