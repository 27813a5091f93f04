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
}
