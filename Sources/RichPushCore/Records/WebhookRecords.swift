#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a webhook may be told of.
public enum WebhookEventType: String, Codable, Sendable, CaseIterable {
    /// A hub accepted a delivery's silent push.
    case deliverySent = "delivery.sent"
    /// A delivery failed for good: its hub refused it, or the device is gone.
    case deliveryFailed = "delivery.failed"
    /// A recipient fetched the payload for the first time.
    case payloadFetched = "payload.fetched"
    /// An installation showed the notification (its `displayed` receipt).
    case notificationDisplayed = "notification.displayed"
    /// A recipient opened it (user action state `activated`).
    case notificationOpened = "notification.opened"
    /// A recipient dismissed it.
    case notificationDismissed = "notification.dismissed"
    /// Its last outstanding delivery finished: every one is sent or failed.
    case notificationCompleted = "notification.completed"
}

/// A webhook as it is listed: never its secret after the answer that created it.
public struct WebhookRecord: Sendable, Equatable {
    public var id: String
    public var url: String
    public var events: [WebhookEventType]
    public var createdBy: String
    public var createdAt: Date
    /// When the gateway stopped sending to it, and why (nil while it is enabled).
    public var disabledAt: Date?
    public var disabledReason: String?
    /// Since when every attempt has failed; nil after a success.
    public var failingSince: Date?

    public init(
        id: String, url: String, events: [WebhookEventType], createdBy: String, createdAt: Date, disabledAt: Date? = nil,
        disabledReason: String? = nil, failingSince: Date? = nil
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.failingSince = failingSince
    }
}

/// What happened, as a webhook's outbox keeps it until it is sent: the event's `data` object already encoded, so the
/// body a retry signs is the body the first attempt signed.
public struct WebhookEventDraft: Sendable, Equatable {
    public var type: WebhookEventType
    public var data: WebhookEventData
    /// Set for an event that may happen only once per webhook (a notification completes once).
    public var dedupeKey: String?

    public init(type: WebhookEventType, data: WebhookEventData, dedupeKey: String? = nil) {
        self.type = type
        self.data = data
        self.dedupeKey = dedupeKey
    }
}

/// The `data` of an event: the notification it is about and, as the event has them, the delivery, device and user.
public struct WebhookEventData: Codable, Sendable, Equatable {
    public var notificationId: Int64
    public var deliveryId: Int64?
    public var installationId: String?
    public var username: String?
    public var platform: Platform?
    /// Why a delivery failed: the hub's error code.
    public var errorCode: String?
    /// The notification's state when it completed, and its deliveries by outcome.
    public var state: NotificationState?
    public var sent: Int?
    public var failed: Int?
    /// The button pressed, by id, when an open or dismissal came from one.
    public var action: String?

    public init(
        notificationId: Int64, deliveryId: Int64? = nil, installationId: String? = nil, username: String? = nil, platform: Platform? = nil,
        errorCode: String? = nil, state: NotificationState? = nil, sent: Int? = nil, failed: Int? = nil, action: String? = nil
    ) {
        self.action = action
        self.notificationId = notificationId
        self.deliveryId = deliveryId
        self.installationId = installationId
        self.username = username
        self.platform = platform
        self.errorCode = errorCode
        self.state = state
        self.sent = sent
        self.failed = failed
    }
}

/// One event of a claimed message, as the receiver gets it.
public struct WebhookEvent: Sendable, Equatable {
    public var type: WebhookEventType
    public var occurredAt: Date
    /// The encoded ``WebhookEventData``.
    public var data: String

    public init(type: WebhookEventType, occurredAt: Date, data: String) {
        self.type = type
        self.occurredAt = occurredAt
        self.data = data
    }
}

/// A message a sender claimed: its events in order, to go to one webhook in one request, under one id for every
/// attempt (the receiver's key to drop a repeat).
public struct WebhookMessage: Sendable, Equatable {
    public var id: String
    public var webhookId: String
    public var url: String
    public var secret: String
    public var createdAt: Date
    /// Attempts made before this one.
    public var attempts: Int
    public var events: [WebhookEvent]

    public init(id: String, webhookId: String, url: String, secret: String, createdAt: Date, attempts: Int, events: [WebhookEvent]) {
        self.id = id
        self.webhookId = webhookId
        self.url = url
        self.secret = secret
        self.createdAt = createdAt
        self.attempts = attempts
        self.events = events
    }
}

/// What became of one attempt to send a message.
public struct WebhookAttemptResult: Sendable, Equatable {
    /// The receiver's status, nil when none came (refused, unreachable, timed out).
    public var status: Int?
    public var error: String?
    public var duration: TimeInterval

    public init(status: Int?, error: String?, duration: TimeInterval) {
        self.status = status
        self.error = error
        self.duration = duration
    }

    /// Standard Webhooks: any 2xx is a success, anything else is retried.
    public var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }
}

/// One attempt as `GET /api/webhooks/{id}/attempts` lists it.
public struct WebhookAttemptRecord: Sendable, Equatable {
    public var id: Int64
    public var messageId: String
    public var attemptedAt: Date
    public var eventCount: Int
    public var result: WebhookAttemptResult

    public init(id: Int64, messageId: String, attemptedAt: Date, eventCount: Int, result: WebhookAttemptResult) {
        self.id = id
        self.messageId = messageId
        self.attemptedAt = attemptedAt
        self.eventCount = eventCount
        self.result = result
    }
}
