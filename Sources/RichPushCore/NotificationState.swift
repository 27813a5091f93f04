#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    import Foundation
#endif

/// Where a rich notification stands, derived from its deliveries (never stored, so it cannot drift).
public enum NotificationState: String, Codable, Sendable, CaseIterable {
    /// `deliverAt` is still in the future.
    case scheduled
    /// Deliveries are outstanding.
    case sending
    /// Every delivery was accepted by its hub, or no device was addressed.
    case delivered
    /// Some deliveries were accepted and some failed.
    case partial
    /// No delivery was accepted.
    case failed
    /// `expiresAt` passed while deliveries were outstanding.
    case expired
    /// Canceled before it was sent.
    case canceled

    /// Derives the state from the delivery counts of one notification.
    public static func derive(
        tally: DeliveryTally, deliverAt: Date, expiresAt: Date?, canceled: Bool, now: Date
    ) -> NotificationState {
        if canceled { return .canceled }
        let isExpired = expiresAt.map { $0 <= now } ?? false
        if tally.pending > 0 {
            if isExpired { return .expired }
            return deliverAt > now && tally.sent + tally.failed == 0 ? .scheduled : .sending
        }
        if tally.expired > 0 { return .expired }
        if tally.targeted == 0 { return deliverAt > now ? .scheduled : .delivered }
        if tally.failed == 0 { return .delivered }
        return tally.sent == 0 ? .failed : .partial
    }
}

/// Counts of one notification's deliveries by outcome.
public struct DeliveryTally: Sendable, Equatable {
    public var pending: Int
    public var sent: Int
    public var failed: Int
    public var expired: Int
    public var canceled: Int
    /// Not sent because their users had reached the frequency cap.
    public var capped: Int

    public init(pending: Int = 0, sent: Int = 0, failed: Int = 0, expired: Int = 0, canceled: Int = 0, capped: Int = 0) {
        self.capped = capped
        self.pending = pending
        self.sent = sent
        self.failed = failed
        self.expired = expired
        self.canceled = canceled
    }

    /// Every installation the notification addressed.
    public var targeted: Int { pending + sent + failed + expired + canceled + capped }
}
