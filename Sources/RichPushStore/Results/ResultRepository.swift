public import Foundation
public import RichPushCore

/// What became of a notification: its tallies, each delivery's result, its timeline and its variants' funnels.
public protocol ResultRepository: Sendable {
    /// Delivery counts, user states and failures of one notification.
    func counts(notificationId id: Int64) async throws -> NotificationCounts
    /// Up to `limit` deliveries of a notification with ids above `after`, in id order.
    func deliveryResults(notificationId: Int64, after: Int64, limit: Int) async throws -> [DeliveryResult]
    /// What happened to a notification in each `step` from `start` until `end`, counted in the store by bucket.
    ///
    /// Opens and dismissals fall in the bucket of their user's last change of state, which is when the store last
    /// touched the user's feed entry.
    func timeline(notificationId id: Int64, from start: Date, to end: Date, step: TimeInterval) async throws -> [TimelineBucket]
    /// How far the notification reached: of its deliveries sent, how soon their devices fetched the payload and
    /// how many were reached at all, in all and per variant.
    func reach(notificationId id: Int64) async throws -> NotificationReach
    /// Each variant's funnel, in the order the notification lists them.
    func variantFunnels(notificationId id: Int64, variants: [Variant]) async throws -> [VariantFunnel]
}
