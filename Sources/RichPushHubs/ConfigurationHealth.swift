import Foundation
import Logging
import RichPushCore
import Synchronization

/// Whether a hub's configuration works: a hub's answer that no device can fix (a rejected key, a wrong topic or
/// project) fails the rest of the batch without sending, and is logged once while it persists rather than once per
/// device, until the hub accepts a push again.
final class ConfigurationHealth: Sendable {
    private struct Logged {
        var code: String
        var at: Date
    }

    let hub: String
    /// A failure that persists is logged again after this long, so it stays visible in the log.
    let reminderInterval: TimeInterval
    private let logged = Mutex<Logged?>(nil)
    private let confirmed = Atomic<Bool>(false)

    /// Whether the hub accepted a push since the start or since the last configuration failure.
    var isConfirmed: Bool { confirmed.load(ordering: .relaxed) }

    init(hub: String, reminderInterval: TimeInterval = 600) {
        self.hub = hub
        self.reminderInterval = reminderInterval
    }

    /// The failed outcome for `code`, logged unless it was logged recently.
    func fail(code: String, message: String, logger: Logger, now: Date = .now) -> DeliveryOutcome {
        confirmed.store(false, ordering: .relaxed)
        let shouldLog = logged.withLock { logged in
            if let last = logged, last.code == code, now.timeIntervalSince(last.at) < reminderInterval { return false }
            logged = Logged(code: code, at: now)
            return true
        }
        if shouldLog {
            logger.error(
                "hub configuration rejected", metadata: ["richpush.hub": "\(hub)", "richpush.code": "\(code)", "richpush.reason": "\(message)"])
        }
        return .failed(code: code, message: message)
    }

    /// A success shows the configuration works again; the next failure is logged at once.
    func clear() {
        confirmed.store(true, ordering: .relaxed)
        logged.withLock { $0 = nil }
    }
}
