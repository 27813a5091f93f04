/// One entry of the audit trail (`GET /api/audit`): who did what to what, and when.
public struct AuditEventJSON: Codable, Sendable, Equatable {
    public var id: Int64
    public var at: String
    public var actor: String
    /// e.g. `notification.recalled`.
    public var action: String
    public var target: String
    public var details: String?

    public init(id: Int64, at: String, actor: String, action: String, target: String, details: String? = nil) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.target = target
        self.details = details
    }
}
