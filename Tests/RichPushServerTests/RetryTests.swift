import Foundation
import GatewayTesting
import HTTPTypes
import HubTestServers
import HummingbirdTesting
import RichPushCore
import RichPushHubs
import RichPushServer
import TestSupport
import Testing

/// `POST /api/notifications/{id}/retry`: a marketer sends the failed deliveries of a notification again.
@Suite("Retrying failed deliveries")
struct RetryTests {
    /// A gateway sending to a loopback APNs, alice with an iPhone and an iPad.
    func withAPNs(_ body: @Sendable (Session, APNsTestServer, Credentials) async throws -> Void) async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let apns = try await APNsTestServer.start(directory: keys)
        let gateway = TestGateway { configuration in
            configuration.hubs.useLoopbackAPNs(apns)
        }
        do {
            try await gateway.run { session in
                let alice = try await session.createUser("alice")
                for device in ["iphone", "ipad"] { try await session.register(device, of: alice, platform: .apns) }
                try await body(session, apns, alice)
            }
            await apns.stop()
        } catch {
            await apns.stop()
            throw error
        }
    }

    /// Sends to alice's devices and waits until none is pending; the iPad's push is refused with `answer` first.
    func sendRefusingTheiPad(_ session: Session, _ apns: APNsTestServer, answer: APNsTestServer.Answer) async throws -> Int64 {
        apns.answer(apnsToken(of: "ipad"), with: answer)
        let id = try await session.send(#"{"message":"Sale","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
        _ = try await session.waitForState("delivered", of: id)
        return id
    }

    @Test func theFailedDeliveriesGoOutAgainAndReachTheirDevices() async throws {
        try await withAPNs { session, apns, _ in
            let id = try await sendRefusingTheiPad(session, apns, answer: .init(status: 400, reason: "BadPriority"))
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["failed"] as? Int64 == 1)
            let retried = try await session.request(.post, "/api/notifications/\(id)/retry", as: .admin)
            #expect(retried.status == .accepted)
            #expect(try retried.json()["retried"] as? Int64 == 1)
            let status = try await session.waitForState("delivered", of: id)
            #expect(status["sent"] as? Int64 == 2)
            #expect(status["failed"] as? Int64 == 0)
            #expect(apns.accepted.map(\.deviceToken).sorted() == [apnsToken(of: "ipad"), apnsToken(of: "iphone")].sorted())
        }
    }

    @Test func aSecondRetryWhileTheFirstsDeliveriesArePendingRetriesNone() async throws {
        try await withAPNs { session, apns, _ in
            let id = try await sendRefusingTheiPad(session, apns, answer: .init(status: 400, reason: "BadPriority"))
            apns.holdAnswers(to: apnsToken(of: "ipad"))
            #expect(try await session.request(.post, "/api/notifications/\(id)/retry", as: .admin).json()["retried"] as? Int64 == 1)
            let again = try await session.request(.post, "/api/notifications/\(id)/retry", as: .admin)
            #expect(again.status == .accepted)
            #expect(try again.json()["retried"] as? Int64 == 0)
            apns.releaseHeldAnswers()
            #expect(try await session.waitForState("delivered", of: id)["sent"] as? Int64 == 2)
            #expect(apns.accepted.filter { $0.deviceToken == apnsToken(of: "ipad") }.count == 1)
        }
    }

    @Test func aDeviceAHubReportedGoneIsNotRetried() async throws {
        try await withAPNs { session, apns, _ in
            let id = try await sendRefusingTheiPad(session, apns, answer: .init(status: 410, reason: "Unregistered"))
            let retried = try await session.request(.post, "/api/notifications/\(id)/retry", as: .admin)
            #expect(try retried.json()["retried"] as? Int64 == 0)
        }
    }

    @Test func aRetryIsInTheAuditTrailWithHowManyWentAgain() async throws {
        try await withAPNs { session, apns, _ in
            let marketer = try await session.createUser("mark", role: .marketer)
            let id = try await sendRefusingTheiPad(session, apns, answer: .init(status: 400, reason: "BadPriority"))
            _ = try await session.request(.post, "/api/notifications/\(id)/retry", as: marketer)
            let items = try await session.request(.get, "/api/audit", as: .admin).json()["items"] as? [[String: Any]] ?? []
            let entry = try #require(items.first)
            #expect(entry["action"] as? String == "notification.retried")
            #expect(entry["actor"] as? String == "mark")
            #expect(entry["target"] as? String == String(id))
            #expect(entry["details"] as? String == "1 deliveries")
        }
    }

    @Test func aMemberMayNotRetry() async throws {
        try await withAPNs { session, apns, alice in
            let id = try await sendRefusingTheiPad(session, apns, answer: .init(status: 400, reason: "BadPriority"))
            let refused = try await session.request(.post, "/api/notifications/\(id)/retry", as: alice)
            #expect(refused.status == .forbidden)
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()["failed"] as? Int64 == 1)
        }
    }

    @Test func aRecalledNotificationIsNotSentAgain() async throws {
        try await withAPNs { session, apns, _ in
            let id = try await sendRefusingTheiPad(session, apns, answer: .init(status: 400, reason: "BadPriority"))
            #expect(try await session.request(.delete, "/api/notifications/\(id)", as: .admin).status == .noContent)
            let refused = try await session.request(.post, "/api/notifications/\(id)/retry", as: .admin)
            #expect(refused.status == .conflict)
            #expect(try refused.error().code == "notification.removed")
        }
    }

    @Test func aNotificationThatDoesNotExistIs404() async throws {
        try await TestGateway().run { session in
            let refused = try await session.request(.post, "/api/notifications/999/retry", as: .admin)
            #expect(refused.status == .notFound)
            #expect(try refused.error().code == "notification.notFound")
        }
    }
}
