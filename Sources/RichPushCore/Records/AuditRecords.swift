#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

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
    case notificationRetried = "notification.retried"
    case templateChanged = "template.changed"
    case segmentsChanged = "segments.changed"
    case webhookCreated = "webhook.created"
    case webhookChanged = "webhook.changed"
    case webhookDeleted = "webhook.deleted"
    case activityStarted = "activity.started"
    case activityUpdated = "activity.updated"
    case activityEnded = "activity.ended"
}

/// One entry of the audit trail: who did what to what, and when.
public struct AuditEvent: Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var actor: String
    public var action: String
    public var target: String
    public var details: String?

    public init(id: Int64, at: Date, actor: String, action: String, target: String, details: String? = nil) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.target = target
        self.details = details
    }
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
