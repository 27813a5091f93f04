import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import RichPushCore
import Testing

@testable import RichPushServer
@testable import RichPushStore

/// One decision serves the fast path and the router: the same table of callers and notifications through both. Part
/// of the fast path's serialized suite, whose tests alone may reach the process's fetch counters from memory.
extension PayloadFastPathTests {
    enum Situation: String, CaseIterable, Sendable {
        case memberInTheAudience, memberOutsideIt, marketer, recalled, canceled, signedLink
    }

    /// The answer each situation gets, by either entry.
    static let expected: [Situation: HTTPResponse.Status] = [
        .memberInTheAudience: .ok, .memberOutsideIt: .notFound, .marketer: .ok, .recalled: .gone, .canceled: .gone, .signedLink: .ok,
    ]

    /// The `richpush_payload_fetches_total` count answered from memory.
    func fromMemory(_ session: Session) async throws -> Int {
        let text = String(buffer: try await session.request(.get, "/metrics").body)
        return text.split(separator: "\n")
            .filter { $0.hasPrefix("richpush_payload_fetches_total{") && $0.contains("path=\"memory\"") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    @Test(arguments: Situation.allCases)
    func theRouterAndTheFastPathGiveTheSameAnswer(_ situation: Situation) async throws {
        try await TestGateway({
            $0.payloadNotificationTimeToLive = 3600
            $0.credentialRevalidation = 3600
        }).run(.live) { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            let mark = try await session.createUser("mark", role: .marketer)
            try await session.register("laptop", of: alice)
            let image = try await session.upload(as: .admin)
            let deliverAt = situation == .canceled ? #","deliverAt":"2099-01-01T00:00:00Z""# : ""
            let id = try await session.send(
                #"{"message":"m","richType":"img","imageId":\#(image),"audience":"username:alice"\#(deliverAt)}"#, as: .admin)
            if situation == .recalled { _ = try await session.waitForState("delivered", of: id) }
            if situation == .recalled || situation == .canceled {
                #expect(try await session.request(.delete, "/api/notifications/\(id)", as: .admin).status == .noContent)
            }
            let caller: Credentials? =
                switch situation {
                case .memberOutsideIt: bob
                case .marketer: mark
                case .signedLink: nil
                default: alice
                }
            var path = "/api/notifications/\(id)"
            if caller == nil {
                let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
                path = try #require(info["payloadUrl"] as? String)
            }
            let expected = try #require(Self.expected[situation])
            // The first fetch is the router's; it fills the caches the fast path answers later ones from.
            #expect(try await session.request(.get, path, as: caller).status == expected)
            let before = try await fromMemory(session)
            #expect(try await session.request(.get, path, as: caller).status == expected)
            let servedFromMemory = try await fromMemory(session) > before
            // The fast path answers successes of credentialed callers only; refusals and signed links stay the router's.
            #expect(servedFromMemory == (expected == .ok && caller != nil))
        }
    }

    @Test func aNotificationThatExpiresIsGoneByBothEntriesThoughTheFastPathHoldsIt() async throws {
        try await TestGateway({
            $0.payloadNotificationTimeToLive = 3600 * 24
            $0.credentialRevalidation = 3600 * 24
        }).run(.live) { session in
            let alice = try await session.createUser("alice")
            let carol = try await session.createUser("carol")
            try await session.register("laptop", of: alice, tags: ["topic:sale"])
            try await session.register("tablet", of: carol, tags: ["topic:sale"])
            let expiresAt = Timestamp.format(session.clock.now + 3600)
            let id = try await session.send(
                #"{"message":"m","richType":"text","text":"t","audience":"topic:sale","expiresAt":"\#(expiresAt)"}"#, as: .admin)
            let path = "/api/notifications/\(id)"
            // Alice's fetches put the notification and her sign-in in the fast path's memory.
            #expect(try await session.request(.get, path, as: alice).status == .ok)
            #expect(try await session.request(.get, path, as: alice).status == .ok)
            session.clock.advance(by: 2 * 3600)
            let before = try await fromMemory(session)
            #expect(try await session.request(.get, path, as: alice).status == .gone)
            #expect(try await session.request(.get, path, as: carol).status == .gone)
            #expect(try await fromMemory(session) == before)
        }
    }

    @Test func aNotificationPastItsExpiryIsGoneToEveryCaller() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let record = NotificationRecord(
            id: 1, message: "m", payload: .text("t"), audience: "username:alice", pushStyle: .silent, createdBy: "admin",
            createdAt: now - 120, deliverAt: now - 120, expiresAt: now - 1, canceledAt: nil, deletedAt: nil, content: PushContent())
        let alice = AuthenticatedUser(username: "alice", role: .member)
        #expect(PayloadAccess.decide(record, caller: alice, isRecipient: true, at: now) == .gone(reason: "has expired"))
        #expect(PayloadAccess.decide(record, caller: nil, isRecipient: false, at: now) == .gone(reason: "has expired"))
        #expect(PayloadAccess.decide(record, caller: alice, isRecipient: true, at: now - 2) == .served(record, recordsFetch: true))
    }
}
