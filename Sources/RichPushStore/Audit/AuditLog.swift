public import RichPushCore

/// The audit trail: who created, changed or removed what. Each audited change writes its ``AuditEntry`` in its own
/// transaction, through the repository that makes the change; this reads the trail back.
public protocol AuditLog: Sendable {
    /// Up to `limit` events older than the event `before` (newest first when nil), newest first.
    func events(before: Int64?, limit: Int) async throws -> [AuditEvent]
}
