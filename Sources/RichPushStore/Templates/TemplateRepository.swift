public import Foundation
public import RichPushCore

/// Templates, each a series of versions: a notification names the version it was made from.
public protocol TemplateRepository: Sendable {
    /// Creates version 1 of template `name`; throws ``StoreError/duplicate(_:)`` when the name is taken, and
    /// ``StoreError/templateLimit(_:)`` when `createdBy` has created `limit` templates (nil for no limit).
    func create(name: String, description: String?, fields: String, createdBy: String, limit: Int?, audit: AuditEntry?, now: Date)
        async throws -> TemplateRecord
    /// Stores the next version of template `name`; nil when there is no such template. `audit` makes the trail's
    /// entry of the new version.
    func update(
        name: String, description: String?, fields: String, createdBy: String, audit: @escaping @Sendable (Int) -> AuditEntry?, now: Date
    ) async throws -> TemplateRecord?
    /// Version `version` of template `name`, or its latest when `version` is nil.
    func template(name: String, version: Int?) async throws -> TemplateRecord?
    /// The latest version of up to `limit` templates named after `after` (from the first when nil), by name.
    func list(after: String?, limit: Int) async throws -> [TemplateRecord]
    /// Removes every version of template `name`; returns whether it existed. Notifications made from it keep its name.
    func delete(name: String, audit: AuditEntry?, now: Date) async throws -> Bool
}
