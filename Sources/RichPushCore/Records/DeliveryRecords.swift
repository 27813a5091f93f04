#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A failed delivery, as the status endpoint lists it.
public struct DeliveryError: Sendable, Equatable {
    public var installationId: String
    public var platform: Platform
    public var code: String
    public var message: String
    public var at: Date?

    public init(installationId: String, platform: Platform, code: String, message: String, at: Date? = nil) {
        self.installationId = installationId
        self.platform = platform
        self.code = code
        self.message = message
        self.at = at
    }
}

/// The numbers behind `GET /api/notifications/{id}/status`.
public struct NotificationCounts: Sendable, Equatable {
    public var tally: DeliveryTally
    public var fetched: Int
    public var displayed: Int
    public var opened: Int
    public var dismissed: Int
    public var errors: [DeliveryError]
    public var fallbacks: FallbackTally
    /// Users who pressed each button, by action id.
    public var actions: [String: Int]

    public init(
        tally: DeliveryTally, fetched: Int, displayed: Int, opened: Int, dismissed: Int, errors: [DeliveryError],
        fallbacks: FallbackTally = FallbackTally(), actions: [String: Int] = [:]
    ) {
        self.actions = actions
        self.fallbacks = fallbacks
        self.tally = tally
        self.fetched = fetched
        self.displayed = displayed
        self.opened = opened
        self.dismissed = dismissed
        self.errors = errors
    }
}

/// The fallbacks of a notification: alerts sent to devices that had not fetched the payload in time, and how many of
/// their users fetched it after.
public struct FallbackTally: Sendable, Equatable {
    public var sent: Int
    public var fetchedAfter: Int

    public init(sent: Int = 0, fetchedAfter: Int = 0) {
        self.sent = sent
        self.fetchedAfter = fetchedAfter
    }
}

/// One delivery of a notification as its results list it: where it went, how it ended, what its user did.
public struct DeliveryResult: Sendable, Equatable {
    public var deliveryId: Int64
    public var installationId: String
    public var owner: String
    public var platform: Platform
    public var variant: String?
    public var language: String?
    /// `pending`, `sent`, `failed`, `expired`, `canceled` or `capped`.
    public var state: String
    /// The error code of a delivery that was not sent.
    public var reason: String?
    public var attempts: Int
    public var sentAt: Date?
    /// When the hub accepted its fallback: the alert sent because the payload was not fetched by the deadline.
    public var fallbackSentAt: Date?
    /// When its installation first fetched the payload, or else when its user did (``fetchedBy`` says which).
    public var fetchedAt: Date?
    public var fetchedBy: FetchedBy?
    /// When this installation reported the alert displayed.
    public var displayedAt: Date?
    public var readState: ReadState
    public var userActionState: UserActionState
    /// The button its user pressed, by id.
    public var action: String?
    /// The status the gateway's request of an `http` action got: 0 when no answer came, nil while it runs or when none ran.
    public var actionStatus: Int?

    public init(
        deliveryId: Int64, installationId: String, owner: String, platform: Platform, variant: String? = nil, language: String? = nil, state: String,
        reason: String? = nil, attempts: Int, sentAt: Date? = nil, fallbackSentAt: Date? = nil, fetchedAt: Date? = nil, fetchedBy: FetchedBy? = nil,
        displayedAt: Date? = nil, readState: ReadState, userActionState: UserActionState, action: String? = nil, actionStatus: Int? = nil
    ) {
        self.action = action
        self.actionStatus = actionStatus
        self.fallbackSentAt = fallbackSentAt
        self.deliveryId = deliveryId
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

/// What happened to a notification within one step of its timeline.
public struct TimelineBucket: Sendable, Equatable {
    public var start: Date
    public var sent: Int = 0
    public var fetched: Int = 0
    public var displayed: Int = 0
    public var opened: Int = 0
    public var dismissed: Int = 0
    /// Fallbacks whose hub accepted them.
    public var fallbacks: Int = 0

    public init(
        start: Date, sent: Int = 0, fetched: Int = 0, displayed: Int = 0, opened: Int = 0, dismissed: Int = 0, fallbacks: Int = 0
    ) {
        self.fallbacks = fallbacks
        self.start = start
        self.sent = sent
        self.fetched = fetched
        self.displayed = displayed
        self.opened = opened
        self.dismissed = dismissed
    }
}

/// How one variant of an A/B test did.
public struct VariantFunnel: Sendable, Equatable {
    public var name: String
    /// Installations of the users assigned it.
    public var targeted: Int = 0
    public var sent: Int = 0
    /// Distinct users who fetched the payload.
    public var fetched: Int = 0
    /// Distinct installations that reported the alert displayed.
    public var displayed: Int = 0
    /// Distinct users whose state is activated, and dismissed.
    public var opened: Int = 0
    public var dismissed: Int = 0
    /// Users who pressed each button, by action id.
    public var actions: [String: Int] = [:]

    public init(
        name: String, targeted: Int = 0, sent: Int = 0, fetched: Int = 0, displayed: Int = 0, opened: Int = 0, dismissed: Int = 0
    ) {
        self.name = name
        self.targeted = targeted
        self.sent = sent
        self.fetched = fetched
        self.displayed = displayed
        self.opened = opened
        self.dismissed = dismissed
    }
}

/// A claimed state push: the job for its hub, and the version of the state it carries.
public struct StatePushClaim: Sendable {
    public var job: DeliveryJob
    public var version: Int64

    public init(job: DeliveryJob, version: Int64) {
        self.job = job
        self.version = version
    }
}
