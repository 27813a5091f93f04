public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    static let installationColumns = [
        "id", "owner", "platform", "push_channel", "tags", "app_version", "application_name", "sdk_version", "time_zone",
        "created_at", "updated_at", "dead_at", "dead_reason",
    ]

    /// Creates or replaces an installation; `created` tells which. A push channel held by another installation moves
    /// to this one (the other is removed: it was the same device before a reinstall).
    ///
    /// Registering again revives an installation a hub had reported gone.
    public func upsertInstallation(_ installation: InstallationRecord) async throws -> (record: InstallationRecord, created: Bool) {
        let mirrored = mirroredPlatforms
        return try await engine.transaction { db in try await Self.upsert(installation, mirrored: mirrored, in: db) }
    }

    /// Registers many installations in one transaction, each as ``upsertInstallation(_:)`` would: all of them, or
    /// none when one is refused. Returns how many were created.
    public func importInstallations(_ installations: [InstallationRecord]) async throws -> Int {
        let mirrored = mirroredPlatforms
        // Without an id or a push channel twice, new installations go in with a few statements per chunk.
        let distinct =
            Set(installations.map(\.id)).count == installations.count
            && Set(installations.map { ChannelKey(platform: $0.platform, pushChannel: $0.pushChannel) }).count == installations.count
        return try await engine.transaction { db in
            var created = 0
            for chunk in installations.chunked(Self.insertChunk) {
                if distinct, let inserted = try await Self.insertNew(chunk, mirrored: mirrored, in: db) {
                    created += inserted
                    continue
                }
                for installation in chunk {
                    if try await Self.upsert(installation, mirrored: mirrored, in: db).created { created += 1 }
                }
            }
            return created
        }
    }

    /// Inserts a chunk of an import in bulk when every installation in it is new and no other installation holds
    /// its push channel; returns how many were created, or nil when the chunk needs ``upsert(_:mirrored:in:)`` one by
    /// one.
    private static func insertNew(_ chunk: ArraySlice<InstallationRecord>, mirrored: Set<Platform>, in db: any SQLDatabase) async throws
        -> Int?
    {
        let taken = try await db.select().column("id").from("installations").where("id", .in, chunk.map(\.id)).first()
        guard taken == nil else { return nil }
        let holders = try await db.select().columns("platform", "push_channel").from("installations")
            .where("push_channel", .in, chunk.map(\.pushChannel)).all()
        let wanted = Set(chunk.map { ChannelKey(platform: $0.platform, pushChannel: $0.pushChannel) })
        for holder in holders {
            let key = ChannelKey(platform: try holder.enumeration("platform", as: Platform.self), pushChannel: try holder.string("push_channel"))
            if wanted.contains(key) { return nil }
        }
        try await db.insert(into: "installations").columns(Self.installationColumns)
            .rows(
                try chunk.map { record in
                    let tags = String(decoding: try JSONEncoder().encode(record.tags), as: UTF8.self)
                    return Self.binds(
                        record.id, record.owner, record.platform.rawValue, record.pushChannel, tags, record.appVersion,
                        record.applicationName, record.sdkVersion, record.timeZone, EpochMilliseconds(record.createdAt),
                        EpochMilliseconds(record.updatedAt), Int64?.none, String?.none)
                }
            ).run()
        let tags = chunk.flatMap { record in record.allTags.sorted().map { Self.binds(record.id, $0) } }
        for rows in tags.chunked(Self.insertChunk) {
            try await db.insert(into: "installation_tags").columns("installation_id", "tag").rows(Array(rows)).run()
        }
        for record in chunk {
            try await Self.enqueueMirror(record.id, platforms: [record.platform], mirrored: mirrored, now: record.updatedAt, in: db)
        }
        return chunk.count
    }

    private static func upsert(_ installation: InstallationRecord, mirrored: Set<Platform>, in db: any SQLDatabase) async throws -> (
        record: InstallationRecord, created: Bool
    ) {
        let existing = try await db.select().columns(Self.installationColumns).from("installations")
            .where("id", .equal, installation.id).first().map(Self.installationRecord)
        if let existing, existing.owner != installation.owner {
            throw StoreError.installationOwnedByAnother
        }
        let previousHolders = try await db.select().column("id").from("installations")
            .where("platform", .equal, installation.platform.rawValue)
            .where("push_channel", .equal, installation.pushChannel)
            .where("id", .notEqual, installation.id)
            .all().map { try $0.string("id") }
        for holder in previousHolders {
            _ = try await Self.deleteInstallation(holder, mirrored: mirrored, now: installation.updatedAt, in: db)
        }
        var record = installation
        record.createdAt = existing?.createdAt ?? installation.createdAt
        record.deadAt = nil
        record.deadReason = nil
        let tagsJSON = String(decoding: try JSONEncoder().encode(record.tags), as: UTF8.self)
        if existing == nil {
            try await db.insert(into: "installations").columns(Self.installationColumns)
                .values(
                    record.id, record.owner, record.platform.rawValue, record.pushChannel, tagsJSON, record.appVersion,
                    record.applicationName, record.sdkVersion, record.timeZone, EpochMilliseconds(record.createdAt),
                    EpochMilliseconds(record.updatedAt), Int64?.none, String?.none
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
                .set("updated_at", to: EpochMilliseconds(record.updatedAt))
                .set("dead_at", to: Int64?.none)
                .set("dead_reason", to: String?.none)
                .where("id", .equal, record.id).run()
            try await db.delete(from: "installation_tags").where("installation_id", .equal, record.id).run()
        }
        try await db.insert(into: "installation_tags").columns("installation_id", "tag")
            .rows(record.allTags.sorted().map { Self.binds(record.id, $0) }).run()
        let platforms = [existing?.platform, record.platform].compactMap { $0 }
        try await Self.enqueueMirror(record.id, platforms: platforms, mirrored: mirrored, now: record.updatedAt, in: db)
        return (record, existing == nil)
    }

    /// The installation with this id.
    public func installation(id: String) async throws -> InstallationRecord? {
        try await engine.read { db in
            try await db.select().columns(Self.installationColumns).from("installations").where("id", .equal, id).first()
                .map(Self.installationRecord)
        }
    }

    /// The installations of `owner`, or of everyone when `owner` is nil, in id order.
    public func installations(owner: String?, limit: Int = 1000) async throws -> [InstallationRecord] {
        try await engine.read { db in
            var query = db.select().columns(Self.installationColumns).from("installations")
            if let owner { query = query.where("owner", .equal, owner) }
            return try await query.orderBy("id").limit(limit).all().map(Self.installationRecord)
        }
    }

    /// Removes an installation; returns whether it existed.
    @discardableResult
    public func deleteInstallation(id: String, now: Date = .now) async throws -> Bool {
        let mirrored = mirroredPlatforms
        return try await engine.transaction { db in try await Self.deleteInstallation(id, mirrored: mirrored, now: now, in: db) }
    }

    static func deleteInstallation(_ id: String, mirrored: Set<Platform>, now: Date, in db: any SQLDatabase) async throws -> Bool {
        let platform = try await db.select().column("platform").from("installations").where("id", .equal, id).first()
            .map { try $0.enumeration("platform", as: Platform.self) }
        guard let platform else { return false }
        try await enqueueMirror(id, platforms: [platform], mirrored: mirrored, now: now, in: db)
        try await db.delete(from: "installation_tags").where("installation_id", .equal, id).run()
        // Outstanding deliveries to a removed device can never succeed.
        try await db.update("deliveries").set("state", to: DeliveryState.failed.rawValue)
            .set("error_code", to: "installation.deleted").set("error_message", to: "the installation was deleted")
            .where("installation_id", .equal, id).where(DeliveryState.isPending).run()
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
            timeZone: try row.optionalString("time_zone"), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"), deadAt: try row.optionalDate("dead_at"),
            deadReason: try row.optionalString("dead_reason"))
    }
}

/// A push channel of one platform: unique among installations.
private struct ChannelKey: Hashable {
    var platform: Platform
    var pushChannel: String
}
