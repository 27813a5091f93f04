import Foundation
import Logging
import RichPushCore
import RichPushStore
import Testing

extension Store {
    /// Claims and composes the pushes: the jobs the hubs would be handed.
    func claimJobs(now: Date = .now, limit: Int, lease: TimeInterval) async throws -> [DeliveryJob] {
        PushComposer.jobs(of: try await outbox.claimDue(now: now, limit: limit, lease: lease))
    }

    @discardableResult
    func register(_ id: String, owner: String, platform: Platform = .direct, tags: [String] = []) async throws -> InstallationRecord {
        try await installations.upsert(
            InstallationRecord(id: id, owner: owner, platform: platform, pushChannel: "\(id)-channel", tags: tags, createdAt: .now, updatedAt: .now)
        ).record
    }

    func send(
        _ audience: String, by sender: String = "mark", deliverAt: Date = .now, expiresAt: Date? = nil, key: String? = nil,
        content: PushContent = PushContent(), pushStyle: PushStyle = .silent, purpose: NotificationPurpose = .transactional,
        fallbackAfter: TimeInterval? = nil, deliveryRate: Int? = nil
    ) async throws -> (notification: NotificationRecord, created: Bool) {
        try await notifications.create(
            NotificationDraft(
                message: "Hello", payload: .text("Body"), audience: try TagExpression(parsing: audience), pushStyle: pushStyle,
                deliverAt: deliverAt, expiresAt: expiresAt, createdBy: sender, idempotencyKey: key, content: content,
                purpose: purpose, fallbackAfter: fallbackAfter, deliveryRate: deliveryRate))
    }

    /// `count` devices of alice's registered and a notification sent to her, its deliveries claimed right after.
    func claimedDeliveriesToAlice(_ count: Int) async throws -> (notification: NotificationRecord, jobs: ClaimedBatch, claimedAt: Date) {
        for index in 0..<count { try await register("a\(index)", owner: "alice") }
        let (notification, _) = try await send("username:alice")
        let now = Date.now
        return (notification, try await outbox.claimDue(now: now, limit: count, lease: 60), now)
    }

    /// Alice's `devices` registered, each sent the silent push of a notification to her due at `start` with a fetch
    /// deadline of `deadline`, every push accepted by its hub at `start + 1`.
    func sentWithFetchDeadline(
        _ deadline: TimeInterval, toAlices devices: [(id: String, platform: Platform)], at start: Date, expiresAt: Date? = nil,
        pushStyle: PushStyle = .silent, purpose: NotificationPurpose = .transactional
    ) async throws -> NotificationRecord {
        for device in devices { try await register(device.id, owner: "alice", platform: device.platform) }
        let (notification, _) = try await send(
            "username:alice", deliverAt: start, expiresAt: expiresAt, pushStyle: pushStyle, purpose: purpose, fallbackAfter: deadline)
        let jobs = try await claimJobs(now: start, limit: 10, lease: 60)
        try await outbox.recordOutcomes(jobs.map { ($0, DeliveryOutcome.sent) }, now: start + 1)
        return notification
    }
}
