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

extension Store {
    /// Records that `actor` did `action` to `target`; `details` is free text and must never hold a secret.
    public func recordAudit(actor: String, action: AuditAction, target: String, details: String? = nil, now: Date = .now) async throws {
        try await engine.transaction { db in
            try await db.insert(into: "audit_events").columns("at", "actor", "action", "target", "details")
                .values(EpochMilliseconds(now), actor, action.rawValue, target, details).run()
        }
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
