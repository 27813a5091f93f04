/// One delivery of a notification, as `GET /api/notifications/{id}/deliveries` lists it.
public struct DeliveryResultJSON: Codable, Sendable, Equatable {
    public var installationId: String
    public var owner: String
    public var platform: Platform
    /// The A/B variant its user was assigned.
    public var variant: String?
    /// The localization it was sent in.
    public var language: String?
    /// `pending`, `sent`, `failed`, `expired`, `canceled` or `capped`.
    public var state: String
    /// The error code of a delivery that was not sent, or why a pending one waits.
    public var reason: String?
    public var attempts: Int
    public var sentAt: String?
    /// When the hub accepted the alert sent because the payload was not fetched by the fetch deadline.
    public var fallbackSentAt: String?
    /// When its installation first fetched the payload, or else when its user did, from another device or without
    /// naming one (``fetchedBy`` says which).
    public var fetchedAt: String?
    public var fetchedBy: FetchedBy?
    public var displayedAt: String?
    public var readState: ReadState
    public var userActionState: UserActionState
    /// The button its user pressed, by id.
    public var action: String?
    /// The HTTP status the gateway's request of that `http` action got; 0 when no answer came.
    public var actionStatus: Int?

    public init(
        installationId: String, owner: String, platform: Platform, variant: String? = nil, language: String? = nil, state: String,
        reason: String? = nil, attempts: Int, sentAt: String? = nil, fallbackSentAt: String? = nil, fetchedAt: String? = nil,
        fetchedBy: FetchedBy? = nil,
        displayedAt: String? = nil, readState: ReadState, userActionState: UserActionState, action: String? = nil, actionStatus: Int? = nil
    ) {
        self.action = action
        self.actionStatus = actionStatus
        self.fallbackSentAt = fallbackSentAt
        self.installationId = installationId
        self.owner = owner
        self.platform = platform
        self.variant = variant
        self.language = language
        self.state = state
        self.reason = reason
        self.attempts = attempts
        self.sentAt = sentAt
        self.fetchedAt = fetchedAt
        self.fetchedBy = fetchedBy
        self.displayedAt = displayedAt
        self.readState = readState
        self.userActionState = userActionState
    }
}
