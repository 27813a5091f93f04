import Foundation
import GatewayTesting
import Logging
import RichPushCore
import RichPushStore
import Testing

/// A gateway that crashed while it wrote a large notification's outbox left the rest unwritten: the next start
/// writes it, and every addressed device is sent the notification.
@Suite("Outboxes a crash left unfinished")
struct OutboxRecoveryTests {
    @Test func aGatewayStartingOnAnUnfinishedOutboxWritesTheRestAndSendsToEveryDevice() async throws {
        let gateway = TestGateway()
        let devices = 2_500
        // What a crash leaves: the notification with its first chunk of deliveries, the rest never written.
        let store = try await Store.openSQLite(directory: gateway.directory.path, logger: Logger(label: "test"))
        let now = Date.now
        _ = try await store.installations.importAll(
            (0..<devices).map { index in
                InstallationRecord(
                    id: String(format: "desk-%05d", index), owner: "alice", platform: .direct, pushChannel: "desk-\(index)", tags: ["topic:sale"],
                    createdAt: now, updatedAt: now)
            })
        let (notification, _) = try await store.notifications.create(
            NotificationDraft(
                message: "Sale", payload: .text("20% off"), audience: try TagExpression(parsing: "topic:sale"), pushStyle: .silent, deliverAt: now,
                expiresAt: nil, createdBy: "admin", idempotencyKey: nil))
        #expect(!notification.outboxComplete)
        try await store.close()

        try await gateway.run { session in
            let status = try await session.waitForState("delivered", of: notification.id)
            #expect(status["sent"] as? Int == devices)
        }
    }
}
