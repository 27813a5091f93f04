/// A webhook as `POST`/`GET /api/webhooks` show it; its secret only in the answer that creates it.
public struct WebhookJSON: Codable, Sendable, Equatable {
    public var id: String
    public var url: String
    public var events: [WebhookEventType]
    public var createdBy: String
    public var createdAt: String
    public var enabled: Bool
    public var disabledAt: String?
    public var disabledReason: String?
    public var failingSince: String?
    /// The signing secret (`whsec_…`), shown once: only in the answer that creates the webhook.
    public var secret: String?

    public init(
        id: String, url: String, events: [WebhookEventType], createdBy: String, createdAt: String, enabled: Bool, disabledAt: String? = nil,
        disabledReason: String? = nil, failingSince: String? = nil, secret: String? = nil
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.enabled = enabled
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.failingSince = failingSince
        self.secret = secret
    }
}

/// One attempt to send a webhook message, as `GET /api/webhooks/{id}/attempts` lists it.
public struct WebhookAttemptJSON: Codable, Sendable, Equatable {
    public var id: Int64
    public var messageId: String
    public var attemptedAt: String
    public var events: Int
    /// The receiver's HTTP status; absent when it gave none.
    public var status: Int?
    public var error: String?
    public var durationMs: Int

    public init(id: Int64, messageId: String, attemptedAt: String, events: Int, status: Int?, error: String?, durationMs: Int) {
        self.id = id
        self.messageId = messageId
        self.attemptedAt = attemptedAt
        self.events = events
        self.status = status
        self.error = error
        self.durationMs = durationMs
    }
}
