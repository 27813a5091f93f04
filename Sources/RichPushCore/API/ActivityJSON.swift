/// A Live Activity as the API describes it: the answer to `POST`, `PATCH` and `GET /api/activities/{id}`.
/// `attributes` and `contentState` are the JSON objects the app's `ActivityAttributes` decode, as sent.
public struct ActivityJSON: Codable, Sendable, Equatable {
    public var id: Int64
    public var audience: String
    public var attributesType: String
    public var attributes: JSONValue
    public var contentState: JSONValue
    /// `active` until it is ended, then `ended`.
    public var state: String
    public var createdBy: String
    public var createdAt: String
    public var updatedAt: String
    public var alert: ActivityAlert?
    public var staleDate: String?
    public var relevanceScore: Double?
    public var endedAt: String?
    public var dismissAt: String?

    public init(
        id: Int64, audience: String, attributesType: String, attributes: JSONValue, contentState: JSONValue, state: String,
        createdBy: String, createdAt: String, updatedAt: String,
        alert: ActivityAlert? = nil, staleDate: String? = nil, relevanceScore: Double? = nil, endedAt: String? = nil, dismissAt: String? = nil
    ) {
        self.id = id
        self.audience = audience
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.state = state
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.alert = alert
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.endedAt = endedAt
        self.dismissAt = dismissAt
    }
}

/// One device of a Live Activity, as `GET /api/activities/{id}/deliveries` lists it.
public struct ActivityDeliveryJSON: Codable, Sendable, Equatable {
    public var installationId: String
    public var owner: String
    public var event: LiveActivityEvent
    public var state: String
    public var reason: String?
    public var attempts: Int
    public var sentAt: String?

    public init(
        installationId: String, owner: String, event: LiveActivityEvent, state: String, reason: String? = nil, attempts: Int,
        sentAt: String? = nil
    ) {
        self.installationId = installationId
        self.owner = owner
        self.event = event
        self.state = state
        self.reason = reason
        self.attempts = attempts
        self.sentAt = sentAt
    }
}
