public import Logging
public import RichPushCore

/// A service that carries silent pushes to devices: APNs, FCM, Notification Hubs or the direct stream.
///
/// The dispatcher hands a hub the claimed deliveries of its platforms and records one outcome per delivery, in the
/// same order. A hub never throws: whatever goes wrong becomes an outcome the marketer can read.
public protocol NotificationHub: Sendable {
    /// A short name for logs and metrics (`direct`, `apns`).
    var name: String { get }
    /// Sends one push per job and answers one outcome per job, in order.
    func deliver(_ jobs: [DeliveryJob], logger: Logger) async -> [DeliveryOutcome]
}

/// The stand-in for a platform without a configured hub: its deliveries fail with a clear reason, never silently.
public struct UnconfiguredHub: NotificationHub {
    public let platform: Platform

    public init(platform: Platform) {
        self.platform = platform
    }

    public var name: String { platform.rawValue }

    public func deliver(_ jobs: [DeliveryJob], logger: Logger) async -> [DeliveryOutcome] {
        let outcome = DeliveryOutcome.failed(
            code: "hub.notConfigured", message: "no hub is configured for platform \(platform.rawValue)")
        return jobs.map { _ in outcome }
    }
}
