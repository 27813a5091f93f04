public import Logging
public import RichPushCore

/// A service that carries silent pushes to devices: APNs, FCM, Notification Hubs or the direct stream.
///
/// The dispatcher hands a hub the claimed deliveries of its platforms and records one outcome per delivery, in the
/// same order. A hub never throws: whatever goes wrong becomes an outcome the marketer can read.
public protocol NotificationHub: Sendable {
    /// A short name for logs and metrics (`direct`, `apns`).
    var name: String { get }
    /// Sends one push per job and answers one outcome per job, in order; tells `progress` of each outcome as soon as
    /// it is final, where the hub knows it before the batch's last answer.
    func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome]
    /// The remote service a job's push goes to, whose failures hold back the pushes to it alone (its circuit): the
    /// hub itself, or the host a device names where every device may name another (Web Push, WNS); nil for a hub
    /// in the gateway itself (the direct stream), which no circuit guards.
    func circuit(of job: DeliveryJob) -> String?
}

extension NotificationHub {
    public func circuit(of job: DeliveryJob) -> String? { name }

    /// Sends one push per job and answers one outcome per job, in order.
    public func deliver(_ jobs: [DeliveryJob], logger: Logger) async -> [DeliveryOutcome] {
        await deliver(jobs, logger: logger, progress: .ignored)
    }
}

/// Where a hub tells of a push's outcome once it is final, while the rest of its batch is still out: the dispatcher
/// records it then, so a crash sends again only the pushes in flight and those just answered, however slow the hub.
public struct DeliveryProgress: Sendable {
    private let tell: (@Sendable (Int, DeliveryOutcome) -> Void)?

    /// `tell` gets the index of a job in its batch and that job's outcome; it may be called on an event loop, so it
    /// only takes note.
    public init(_ tell: @escaping @Sendable (_ index: Int, _ outcome: DeliveryOutcome) -> Void) {
        self.tell = tell
    }

    private init() {
        tell = nil
    }

    /// Nobody listens: the batch's answer is all the caller wants.
    public static let ignored = DeliveryProgress()

    /// The job at `index` ended with `outcome`, the same the batch's answer will hold for it.
    public func answered(_ index: Int, _ outcome: DeliveryOutcome) {
        tell?(index, outcome)
    }
}

/// The stand-in for a platform without a configured hub: its deliveries fail with a clear reason, never silently.
public struct UnconfiguredHub: NotificationHub {
    public let platform: Platform

    public init(platform: Platform) {
        self.platform = platform
    }

    public var name: String { platform.rawValue }

    public func circuit(of job: DeliveryJob) -> String? { nil }

    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        let outcome = DeliveryOutcome.failed(
            code: "hub.notConfigured", message: "no hub is configured for platform \(platform.rawValue)")
        return jobs.map { _ in outcome }
    }
}
