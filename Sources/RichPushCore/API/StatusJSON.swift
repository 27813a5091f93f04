/// `GET /api/notifications/{id}/status`: the delivery funnel of one notification.
public struct StatusJSON: Codable, Sendable, Equatable {
    public var id: Int64
    public var state: NotificationState
    public var targeted: Int
    public var sent: Int
    public var failed: Int
    public var pending: Int
    public var expired: Int
    public var canceled: Int
    /// Not sent because their users had reached the frequency cap.
    public var capped: Int
    public var fetched: Int
    public var displayed: Int
    public var opened: Int
    public var dismissed: Int
    /// The first failed or expired deliveries.
    public var errors: [DeliveryErrorJSON]
    /// When the next deliveries fall due, while some are still to come.
    public var nextDueAt: String?
    /// Each A/B variant's funnel.
    public var variants: [VariantFunnelJSON]?
    /// The state and recall pushes to recipients' other devices, by outcome: beside the funnel, not part of it.
    public var statePushes: StatePushesJSON
    /// The alerts sent to devices that had not fetched the payload by the fetch deadline, and how many of their users
    /// fetched it after.
    public var fallbacks: FallbacksJSON
    /// How soon the devices sent to fetched the payload, and how many were reached at all.
    public var reach: Reach
    /// Users who pressed each button, by action id.
    public var actions: [String: Int]

    /// One delivery that failed or expired, with its hub's reason.
    public struct DeliveryErrorJSON: Codable, Sendable, Equatable {
        public var installationId: String
        public var platform: Platform
        public var code: String
        public var message: String
        public var at: String?

        public init(installationId: String, platform: Platform, code: String, message: String, at: String? = nil) {
            self.installationId = installationId
            self.platform = platform
            self.code = code
            self.message = message
            self.at = at
        }
    }

    public struct VariantFunnelJSON: Codable, Sendable, Equatable {
        public var name: String
        public var targeted: Int
        public var sent: Int
        public var fetched: Int
        public var displayed: Int
        public var opened: Int
        public var dismissed: Int
        public var reach: Reach
        /// Users who pressed each button, by action id.
        public var actions: [String: Int]

        public init(
            name: String, targeted: Int, sent: Int, fetched: Int, displayed: Int, opened: Int, dismissed: Int, reach: Reach = Reach(),
            actions: [String: Int] = [:]
        ) {
            self.actions = actions
            self.reach = reach
            self.name = name
            self.targeted = targeted
            self.sent = sent
            self.fetched = fetched
            self.displayed = displayed
            self.opened = opened
            self.dismissed = dismissed
        }
    }

    public struct FallbacksJSON: Codable, Sendable, Equatable {
        public var sent: Int
        public var fetchedAfter: Int

        public init(sent: Int, fetchedAfter: Int) {
            self.sent = sent
            self.fetchedAfter = fetchedAfter
        }
    }

    public struct StatePushesJSON: Codable, Sendable, Equatable {
        public var pending: Int
        public var sent: Int
        public var failed: Int

        public init(pending: Int, sent: Int, failed: Int) {
            self.pending = pending
            self.sent = sent
            self.failed = failed
        }
    }

    public init(
        id: Int64, state: NotificationState, targeted: Int, sent: Int, failed: Int, pending: Int, expired: Int, canceled: Int,
        capped: Int, fetched: Int, displayed: Int, opened: Int, dismissed: Int, errors: [DeliveryErrorJSON], nextDueAt: String? = nil,
        variants: [VariantFunnelJSON]? = nil, statePushes: StatePushesJSON = .init(pending: 0, sent: 0, failed: 0),
        fallbacks: FallbacksJSON = .init(sent: 0, fetchedAfter: 0), reach: Reach = Reach(), actions: [String: Int] = [:]
    ) {
        self.actions = actions
        self.fallbacks = fallbacks
        self.reach = reach
        self.id = id
        self.state = state
        self.targeted = targeted
        self.sent = sent
        self.failed = failed
        self.pending = pending
        self.expired = expired
        self.canceled = canceled
        self.capped = capped
        self.fetched = fetched
        self.displayed = displayed
        self.opened = opened
        self.dismissed = dismissed
        self.errors = errors
        self.nextDueAt = nextDueAt
        self.variants = variants
        self.statePushes = statePushes
    }
}
