public import Logging
public import RichPushCore

/// Where the direct hub puts its pushes: the gateway's event log, which the `/api/me/stream` streams read.
public protocol DirectChannel: Sendable {
    /// Appends one `rich` event per job, each at most once however often it is called for the same delivery.
    func publish(_ jobs: [DeliveryJob]) async throws
}

/// The hub of Linux clients: a push is an event on the owner's server-sent-event stream.
public struct DirectHub: NotificationHub {
    let channel: any DirectChannel
    /// How long to wait before trying again when the event log cannot be written.
    let retryDelay: Double

    public init(channel: any DirectChannel, retryDelay: Double = 5) {
        self.channel = channel
        self.retryDelay = retryDelay
    }

    public var name: String { Platform.direct.rawValue }

    public func circuit(of job: DeliveryJob) -> String? { nil }

    public func deliver(_ jobs: [DeliveryJob], logger: Logger, progress: DeliveryProgress) async -> [DeliveryOutcome] {
        do {
            try await channel.publish(jobs)
            return jobs.map { _ in .sent }
        } catch {
            logger.warning("direct channel unavailable", metadata: ["error": "\(error)"])
            let outcome = DeliveryOutcome.retry(after: retryDelay, code: "direct.unavailable", message: "the event log could not be written")
            return jobs.map { _ in outcome }
        }
    }
}
