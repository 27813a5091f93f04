public import Foundation
public import RichPushCore
import SQLKit

/// The templates in the `templates` table, a row per version.
public struct SQLTemplateRepository: TemplateRepository {
    let engine: any DatabaseEngine

    private static let columns = ["name", "version", "description", "fields", "created_by", "created_at"]

    public func create(
        name: String, description: String?, fields: String, createdBy: String, limit: Int? = nil, audit: AuditEntry? = nil,
        now: Date = .now
    ) async throws -> TemplateRecord {
        try await engine.transaction { db in
            let taken = try await db.select().column("name").from("templates").where("name", .equal, name).limit(1).first()
            guard taken == nil else { throw StoreError.duplicate("template") }
            if let limit {
                // The creator's user row is locked (where rows lock), so two creates at once take turns at the count.
                _ = try await db.select().column("id").from("users").where("username", .equal, createdBy).for(.update).first()
                let created =
                    try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("templates")
                    .where("created_by", .equal, createdBy).where("version", .equal, 1).first()?.int("n") ?? 0
                guard created < limit else { throw StoreError.templateLimit(limit) }
            }
            let inserted = try await db.insert(into: "templates").columns(Self.columns)
                .values(name, 1, description, fields, createdBy, EpochMilliseconds(now))
                .ignoringConflicts().returning("version").first()
            // A concurrent create of the same name, committed meanwhile.
            guard inserted != nil else { throw StoreError.duplicate("template") }
            try await SQLAuditLog.record(audit, in: db, now: now)
            return TemplateRecord(name: name, version: 1, description: description, fields: fields, createdBy: createdBy, createdAt: now)
        }
    }

    public func update(
        name: String, description: String?, fields: String, createdBy: String, audit: @escaping @Sendable (Int) -> AuditEntry? = { _ in nil },
        now: Date = .now
    ) async throws -> TemplateRecord? {
        try await engine.transaction { db in
            // The first version's row, which lives as long as the template, is locked (where rows lock): two updates at
            // once take turns, and each reads the latest version only once it holds the lock.
            let first = try await db.select().column("version").from("templates").where("name", .equal, name)
                .where("version", .equal, 1).for(.update).first()
            guard first != nil else { return nil }
            let latest = try await db.select().column(SQLFunction("MAX", args: SQLIdentifier("version")), as: "version").from("templates")
                .where("name", .equal, name).first()
            let version = try latest?.int("version") ?? 1
            let record = TemplateRecord(
                name: name, version: version + 1, description: description, fields: fields, createdBy: createdBy, createdAt: now)
            try await db.insert(into: "templates").columns(Self.columns)
                .values(name, record.version, description, fields, createdBy, EpochMilliseconds(now)).run()
            try await SQLAuditLog.record(audit(record.version), in: db, now: now)
            return record
        }
    }

    public func template(name: String, version: Int? = nil) async throws -> TemplateRecord? {
        try await engine.read { db in
            var query = db.select().columns(Self.columns).from("templates").where("name", .equal, name)
            if let version { query = query.where("version", .equal, version) }
            return try await query.orderBy("version", .descending).limit(1).first().map(Self.record)
        }
    }

    public func list(after: String? = nil, limit: Int) async throws -> [TemplateRecord] {
        try await engine.read { db in
            let latest = SQLSubquery.select {
                $0.column(SQLFunction("MAX", args: SQLColumn("version", table: "t"))).from(
                    SQLAlias(SQLIdentifier("templates"), as: SQLIdentifier("t"))
                )
                .where(SQLColumn("name", table: "t"), .equal, SQLColumn("name", table: "templates"))
            }
            var query = db.select().columns(Self.columns).from("templates").where(SQLColumn("version"), .equal, latest)
            if let after { query = query.where("name", .greaterThan, after) }
            return try await query.orderBy("name").limit(limit).all().map(Self.record)
        }
    }

    public func delete(name: String, audit: AuditEntry? = nil, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            guard try await db.delete(from: "templates").where("name", .equal, name).returning("version").all().count > 0 else { return false }
            try await SQLAuditLog.record(audit, in: db, now: now)
            return true
        }
    }

    private static func record(_ row: any SQLRow) throws -> TemplateRecord {
        TemplateRecord(
            name: try row.string("name"), version: try row.int("version"), description: try row.optionalString("description"),
            fields: try row.string("fields"), createdBy: try row.string("created_by"), createdAt: try row.date("created_at"))
    }
}
