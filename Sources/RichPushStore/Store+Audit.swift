public import Foundation
import SQLKit

/// What the audit trail records.
public enum AuditAction: String, Sendable, CaseIterable {
    case userCreated = "user.created"
    case userRemoved = "user.removed"
    case userPasswordChanged = "user.passwordChanged"
    case tokenCreated = "token.created"
    case tokenRevoked = "token.revoked"
    case notificationCreated = "notification.created"
    case notificationCanceled = "notification.canceled"
    case notificationRecalled = "notification.recalled"
    case templateChanged = "template.changed"
    case segmentsChanged = "segments.changed"
}

/// One entry of the audit trail: who did what to what, and when.
public struct AuditEvent: Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var actor: String
    public var action: String
    public var target: String
    public var details: String?
}

/// What an audited change writes into the trail, in the change's own transaction: the two commit together or not at
/// all, so a crash can neither leave a change unrecorded nor record one that did not happen.
public struct AuditEntry: Sendable, Equatable {
    public var actor: String
    public var action: AuditAction
    public var target: String
    /// Free text; never a secret.
    public var details: String?

    public init(actor: String, action: AuditAction, target: String, details: String? = nil) {
        self.actor = actor
        self.action = action
        self.target = target
        self.details = details
    }
}

extension Store {
    static func record(_ entry: AuditEntry?, in db: any SQLDatabase, now: Date) async throws {
        guard let entry else { return }
        try await db.insert(into: "audit_events").columns("at", "actor", "action", "target", "details")
            .values(EpochMilliseconds(now), entry.actor, entry.action.rawValue, entry.target, entry.details).run()
    }

    /// Up to `limit` events older than the event `before` (newest first when nil), newest first.
    public func auditEvents(before: Int64?, limit: Int) async throws -> [AuditEvent] {
        try await engine.read { db in
            var query = db.select().columns("id", "at", "actor", "action", "target", "details").from("audit_events")
            if let before { query = query.where("id", .lessThan, before) }
            return try await query.orderBy("id", .descending).limit(limit).all().map { row in
                AuditEvent(
                    id: try row.int64("id"), at: try row.date("at"), actor: try row.string("actor"), action: try row.string("action"),
                    target: try row.string("target"), details: try row.optionalString("details"))
            }
        }
    }
}
