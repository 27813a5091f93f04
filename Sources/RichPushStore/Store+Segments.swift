public import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// The user's segments, sorted; nil when there is no such user.
    public func segments(of username: String) async throws -> [String]? {
        try await engine.read { db in
            guard let row = try await db.select().column("segments").from("users").where("username", .equal, username).first() else {
                return nil
            }
            return try Self.segments(row.optionalString("segments"))
        }
    }

    /// Replaces the user's segments and puts them on every installation of the user, in the same transaction, so an
    /// audience naming one reaches exactly the user's devices from then on; the remote hub's copies follow. Returns
    /// the segments, sorted, or nil when there is no such user; `audit` makes the trail's entry of them.
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
            for chunk in installations.map(\.id).chunked(Self.insertChunk) {
                if !previous.isEmpty {
                    try await db.delete(from: "installation_tags").where("installation_id", .in, Array(chunk)).where("tag", .in, previous).run()
                }
                if !wanted.isEmpty {
                    try await db.insert(into: "installation_tags").columns("installation_id", "tag")
                        .rows(chunk.flatMap { id in wanted.map { Self.binds(id, $0) } }).ignoringConflicts().run()
                }
            }
            for installation in installations {
                try await Self.enqueueMirror(installation.id, platforms: [installation.platform], mirrored: mirrored, now: now, in: db)
            }
            return wanted
        }
    }

    /// The segments of each of `owners` that has any.
    static func segments(of owners: Set<String>, in db: any SQLDatabase) async throws -> [String: [String]] {
        var segments: [String: [String]] = [:]
        for chunk in owners.sorted().chunked(insertChunk) {
            let rows = try await db.select().columns("username", "segments").from("users").where("username", .in, Array(chunk))
                .where("segments", .isNot, SQLLiteral.null).all()
            for row in rows { segments[try row.string("username")] = try Self.segments(row.optionalString("segments")) }
        }
        return segments
    }

    /// The JSON segments are stored as; nil for none.
    static func segmentsJSON(_ segments: [String]) throws -> String? {
        segments.isEmpty ? nil : String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)
    }

    static func segments(_ json: String?) throws -> [String] {
        guard let json else { return [] }
        return try JSONDecoder().decode([String].self, from: Data(json.utf8))
    }
}
