public import Foundation
public import RichPushCore

/// An image the gateway stored (`POST /api/images`).
public struct UploadedImage: Codable, Sendable, Equatable {
    public var id: Int64
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var bytes: Int
}

/// The body of `POST /api/notifications`.
public struct NewNotification: Codable, Sendable, Equatable {
    /// Nil (with `richType` and `audience`) where the template gives it.
    public var message: String?
    public var richType: RichType?
    public var imageId: Int64?
    public var url: String?
    public var text: String?
    public var audience: String?
    public var deliverAt: String?
    public var deliverAtLocal: String?
    public var expiresIn: String?
    public var template: String?
    public var variables: [String: String]?
    public var expiresAt: String?
    public var pushStyle: PushStyle?
    public var idempotencyKey: String?
    public var title: String?
    public var sound: String?
    public var badge: Badge?
    public var category: String?
    public var threadId: String?
    public var data: [String: String]?
    public var localizations: [String: Localization]?

    public init(
        message: String?, richType: RichType?, imageId: Int64? = nil, url: String? = nil, text: String? = nil, audience: String?,
        deliverAt: Date? = nil, expiresAt: Date? = nil, pushStyle: PushStyle? = nil, idempotencyKey: String? = nil
    ) {
        self.message = message
        self.richType = richType
        self.imageId = imageId
        self.url = url
        self.text = text
        self.audience = audience
        self.deliverAt = deliverAt.map(Timestamp.format)
        self.expiresAt = expiresAt.map(Timestamp.format)
        self.pushStyle = pushStyle
        self.idempotencyKey = idempotencyKey
    }
}

/// A notification as the gateway describes it (`/info`, the list, the answer to a create).
public struct RemoteNotification: Codable, Sendable, Equatable {
    public var id: Int64
    public var message: String
    public var richType: RichType
    public var audience: String
    public var state: NotificationState
    public var createdBy: String
    public var createdAt: String
    public var deliverAt: String
    public var expiresAt: String?
    public var deletedAt: String?
    public var pushStyle: PushStyle
    public var imageId: Int64?
    public var url: String?
    public var payloadUrl: String
    public var title: String?
    public var sound: String?
    public var badge: Badge?
    public var category: String?
    public var threadId: String?
    public var data: [String: String]?
    public var localizations: [String: Localization]?
}

/// `GET /api/notifications/{id}/status`: the delivery funnel of one notification.
public struct DeliveryStatus: Codable, Sendable, Equatable {
    /// One delivery that failed or expired.
    public struct Failure: Codable, Sendable, Equatable {
        public var installationId: String
        public var platform: String
        public var code: String
        public var message: String
        public var at: String?
    }

    public var id: Int64
    public var state: NotificationState
    public var targeted: Int
    public var sent: Int
    public var failed: Int
    public var pending: Int
    public var expired: Int
    public var canceled: Int
    /// Not sent because their users had reached the frequency cap; absent from gateways without caps.
    public var capped: Int?
    public var fetched: Int
    public var displayed: Int
    public var opened: Int
    public var dismissed: Int
    public var errors: [Failure]

    /// Deliveries the hubs have finished with, one way or another.
    public var settled: Int { sent + failed + expired + canceled + (capped ?? 0) }
}

extension NotificationState {
    /// Whether the state can no longer change by itself: `scheduled` and `sending` still move.
    public var isFinal: Bool {
        switch self {
        case .scheduled, .sending: false
        case .delivered, .partial, .failed, .expired, .canceled: true
        }
    }
}
