public import Foundation
import SQLKit

/// One version of a template: the fields of a notification, some holding Mustache placeholders.
public struct TemplateRecord: Sendable, Equatable {
    public var name: String
    public var version: Int
    public var description: String?
    /// The template's fields as JSON, as the gateway's template request holds them.
    public var fields: String
    public var createdBy: String
    public var createdAt: Date
}

/// Which template, and which version of it, a notification was made from.
public struct TemplateReference: Sendable, Equatable {
    public var name: String
    public var version: Int

    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }
}

extension Store {
    static let templateColumns = ["name", "version", "description", "fields", "created_by", "created_at"]

    /// Creates version 1 of template `name`; throws ``StoreError/duplicate(_:)`` when the name is taken, and
    /// ``StoreError/templateLimit(_:)`` when `createdBy` has created `limit` templates (nil for no limit).
    public func createTemplate(
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
            let inserted = try await db.insert(into: "templates").columns(Self.templateColumns)
                .values(name, 1, description, fields, createdBy, EpochMilliseconds(now))
                .ignoringConflicts().returning("version").first()
            // A concurrent create of the same name, committed meanwhile.
            guard inserted != nil else { throw StoreError.duplicate("template") }
            try await Self.record(audit, in: db, now: now)
            return TemplateRecord(name: name, version: 1, description: description, fields: fields, createdBy: createdBy, createdAt: now)
        }
    }

    /// Stores the next version of template `name`; nil when there is no such template. `audit` makes the trail's
    /// entry of the new version.
    public func updateTemplate(
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
            try await db.insert(into: "templates").columns(Self.templateColumns)
                .values(name, record.version, description, fields, createdBy, EpochMilliseconds(now)).run()
            try await Self.record(audit(record.version), in: db, now: now)
            return record
        }
    }

    /// Version `version` of template `name`, or its latest when `version` is nil.
    public func template(name: String, version: Int? = nil) async throws -> TemplateRecord? {
        try await engine.read { db in
            var query = db.select().columns(Self.templateColumns).from("templates").where("name", .equal, name)
            if let version { query = query.where("version", .equal, version) }
            return try await query.orderBy("version", .descending).limit(1).first().map(Self.templateRecord)
        }
    }

    /// The latest version of up to `limit` templates named after `after` (from the first when nil), by name.
    public func templates(after: String? = nil, limit: Int) async throws -> [TemplateRecord] {
        try await engine.read { db in
            let latest = SQLSubquery.select {
                $0.column(SQLFunction("MAX", args: SQLColumn("version", table: "t"))).from(
                    SQLAlias(SQLIdentifier("templates"), as: SQLIdentifier("t"))
                )
                .where(SQLColumn("name", table: "t"), .equal, SQLColumn("name", table: "templates"))
            }
            var query = db.select().columns(Self.templateColumns).from("templates").where(SQLColumn("version"), .equal, latest)
            if let after { query = query.where("name", .greaterThan, after) }
            return try await query.orderBy("name").limit(limit).all().map(Self.templateRecord)
        }
    }

    /// Removes every version of template `name`; returns whether it existed. Notifications made from it keep its name.
    public func deleteTemplate(name: String, audit: AuditEntry? = nil, now: Date = .now) async throws -> Bool {
        try await engine.transaction { db in
            guard try await db.delete(from: "templates").where("name", .equal, name).returning("version").all().count > 0 else { return false }
            try await Self.record(audit, in: db, now: now)
            return true
        }
    }

    static func templateRecord(_ row: any SQLRow) throws -> TemplateRecord {
        TemplateRecord(
            name: try row.string("name"), version: try row.int("version"), description: try row.optionalString("description"),
            fields: try row.string("fields"), createdBy: try row.string("created_by"), createdAt: try row.date("created_at"))
    }
}
