public import Foundation
public import RichPushCore
import SQLKit

/// The installations in the `installations` table, with their tags in `installation_tags`.
public struct SQLInstallationRepository: InstallationRepository {
    let engine: any DatabaseEngine
    /// Platforms whose installations a remote hub mirrors: their changes queue a sync in the same transaction.
    let mirroredPlatforms: Set<Platform>

    @discardableResult
    public func upsert(_ installation: InstallationRecord, limit: Int? = nil) async throws -> (
        record: InstallationRecord, created: Bool
    ) {
        let mirrored = mirroredPlatforms
        return try await engine.transaction { db in try await Self.upsert(installation, mirrored: mirrored, limit: limit, in: db)
        }
    }

    public func importAll(_ installations: [InstallationRecord]) async throws -> Int {
        let created = try await insertInstallations(installations)
        if created >= Self.bulkImport {
            try await engine.refreshStatistics(of: ["installations", "installation_tags"], detail: nil)
        }
        return created
    }

    private func insertInstallations(_ installations: [InstallationRecord]) async throws -> Int {
        let mirrored = mirroredPlatforms
        // Without an id or a push channel twice, new installations go in with a few statements per chunk.
        let distinct =
            Set(installations.map(\.id)).count == installations.count
            && Set(installations.map { ChannelKey(platform: $0.platform, pushChannel: $0.pushChannel) }).count == installations.count
        return try await engine.transaction { db in
            var created = 0
            for chunk in installations.chunked(SQLNotificationRepository.insertChunk) {
                if distinct, let inserted = try await Self.insertNew(chunk, mirrored: mirrored, in: db) {
                    created += inserted
                    continue
                }
                for installation in chunk {
                    if try await Self.upsert(installation, mirrored: mirrored, limit: nil, in: db).created { created += 1 }
                }
            }
            return created
        }
    }

    public func installation(id: String) async throws -> InstallationRecord? {
        try await engine.read { db in
            try await db.select().columns(Self.installationColumns).from("installations").where("id", .equal, id).first()
                .map(Self.installationRecord)
        }
    }

    public func list(owner: String?, limit: Int = 1000) async throws -> [InstallationRecord] {
        try await engine.read { db in
            var query = db.select().columns(Self.installationColumns).from("installations")
            if let owner { query = query.where("owner", .equal, owner) }
            return try await query.orderBy("id").limit(limit).all().map(Self.installationRecord)
        }
    }

    @discardableResult
    public func delete(id: String, now: Date = .now) async throws -> Bool {
        let mirrored = mirroredPlatforms
        return try await engine.transaction { db in try await Self.deleteInstallation(id, mirrored: mirrored, now: now, in: db) }
    }

    public func segments(of username: String) async throws -> [String]? {
        try await engine.read { db in
            guard let row = try await db.select().column("segments").from("users").where("username", .equal, username).first() else {
                return nil
            }
            return try Self.segments(row.optionalString("segments"))
        }
    }

    public func setSegments(
        _ segments: [String], of username: String, audit: @escaping @Sendable ([String]) -> AuditEntry? = { _ in nil }, now: Date = .now
    ) async throws -> [String]? {
        let mirrored = mirroredPlatforms
        let wanted = Array(Set(segments)).sorted()
        return try await engine.transaction { db in
            guard
                let row = try await db.select().column("segments").from("users").where("username", .equal, username).for(.update)
                    .first()
            else { return nil }
            let previous = try Self.segments(row.optionalString("segments"))
            let json = try Self.segmentsJSON(wanted)
            try await db.update("users").set("segments", to: json).where("username", .equal, username).run()
            try await SQLAuditLog.record(audit(wanted), in: db, now: now)
            let installations = try await db.select().columns("id", "platform").from("installations").where("owner", .equal, username).all()
                .map { (id: try $0.string("id"), platform: try $0.enumeration("platform", as: Platform.self)) }
            guard !installations.isEmpty else { return wanted }
            try await db.update("installations").set("segments", to: json).where("owner", .equal, username).run()
            for chunk in installations.map(\.id).chunked(SQLNotificationRepository.insertChunk) {
                if !previous.isEmpty {
                    try await db.delete(from: "installation_tags").where("installation_id", .in, Array(chunk)).where("tag", .in, previous).run()
                }
                if !wanted.isEmpty {
                    try await db.insert(into: "installation_tags").columns("installation_id", "tag")
                        .rows(chunk.flatMap { id in wanted.map { SQLNotificationRepository.binds(id, $0) } }).ignoringConflicts().run()
                }
            }
            for installation in installations {
                try await SQLMirrorQueue.enqueueMirror(installation.id, platforms: [installation.platform], mirrored: mirrored, now: now, in: db)
            }
            return wanted
        }
    }

    public func audienceSize(_ audience: TagExpression) async throws -> AudienceSize {
        try await engine.read { db in
            let rows = try await SQLAudience.addressed(by: audience, db.select().column(SQLColumn("platform", table: "i")))
                .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").groupBy(SQLColumn("platform", table: "i")).all()
            var byPlatform = Dictionary(uniqueKeysWithValues: Platform.allCases.map { ($0, 0) })
            for row in rows {
                if let platform = Platform(rawValue: try row.string("platform")) { byPlatform[platform, default: 0] += try row.int("n") }
            }
            let owners = SQLAudience.addressed(by: audience, SQLSubqueryBuilder().column(SQLColumn("owner", table: "i"), as: "username"))
            let recipients = SQLAudience.recipients(owners: owners.select, audience: audience)
            let counted = try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
                .from(SQLAlias(SQLGroupExpression(recipients), as: SQLIdentifier("recipients"))).first()!.int("n")
            return AudienceSize(
                installations: byPlatform.values.reduce(0, +), recipients: counted, installationsByPlatform: byPlatform)
        }
    }
}
