import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Delivery at a local time")
struct LocalDeliveryTests {
    static func utc(_ text: String) -> Date { Timestamp.parse(text)! }

    func register(_ id: String, zone: String?, in store: Store) async throws {
        try await store.installations.upsert(
            InstallationRecord(id: id, owner: "alice", platform: .direct, pushChannel: id, tags: [], timeZone: zone, createdAt: .now, updatedAt: .now)
        )
    }

    func send(at local: String, now: Date, in store: Store) async throws -> NotificationRecord {
        try await store.notifications.create(
            NotificationDraft(
                message: "Good morning", payload: .text("t"), audience: try TagExpression(parsing: "username:alice"), pushStyle: .silent,
                deliverAt: now, expiresAt: nil, createdBy: "mark", idempotencyKey: nil,
                localDelivery: LocalDelivery(time: Timestamp.parseLocal(local)!, defaultTimeZone: TimeZone(identifier: "UTC")!)),
            now: now
        ).notification
    }

    /// The installations whose deliveries a dispatcher claims at `instant`, sorted.
    func due(at instant: String, in store: Store) async throws -> [String] {
        let jobs = try await store.outbox.claimDue(now: Self.utc(instant), limit: 100, lease: 60)
        try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) }, now: Self.utc(instant))
        return jobs.map(\.installationId).sorted()
    }

    @Test(arguments: Engine.allCases) func aMorningCampaignIsReleasedZoneByZone(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("tokyo", zone: "Asia/Tokyo", in: store)
            try await register("berlin", zone: "Europe/Berlin", in: store)
            try await register("new-york", zone: "America/New_York", in: store)
            try await register("nowhere", zone: nil, in: store)
            try await register("mars", zone: "Mars/Olympus_Mons", in: store)
            // New York left daylight saving time on 1 November 2026: 09:00 there is 14:00 UTC from then on.
            let notification = try await send(at: "2026-11-02T09:00:00", now: Self.utc("2026-11-01T12:00:00Z"), in: store)
            #expect(notification.deliverAt == Self.utc("2026-11-02T00:00:00Z"))
            #expect(notification.nextDueAt(after: Self.utc("2026-11-02T00:00:00Z")) == Self.utc("2026-11-02T08:00:00Z"))
            #expect(try await due(at: "2026-11-01T23:59:59Z", in: store) == [])
            #expect(try await due(at: "2026-11-02T00:00:00Z", in: store) == ["tokyo"])
            #expect(try await due(at: "2026-11-02T07:59:00Z", in: store) == [])
            #expect(try await due(at: "2026-11-02T08:00:00Z", in: store) == ["berlin"])
            #expect(try await due(at: "2026-11-02T09:00:00Z", in: store) == ["mars", "nowhere"])
            #expect(try await due(at: "2026-11-02T13:59:00Z", in: store) == [])
            #expect(try await due(at: "2026-11-02T14:00:00Z", in: store) == ["new-york"])
        }
    }

    @Test(arguments: Engine.allCases) func theSameMorningADayBeforeTheClocksChangeIsAnHourEarlierInUTC(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("new-york", zone: "America/New_York", in: store)
            _ = try await send(at: "2026-10-31T09:00:00", now: Self.utc("2026-10-30T00:00:00Z"), in: store)
            #expect(try await due(at: "2026-10-31T12:59:00Z", in: store) == [])
            #expect(try await due(at: "2026-10-31T13:00:00Z", in: store) == ["new-york"])
        }
    }

    @Test func aTimeTheClocksSkipFallsDueJustAfterTheGapAndATimeTheyRepeatAtItsFirstPass() {
        let utc = TimeZone(identifier: "UTC")!
        // 8 March 2026: New York's clocks jump from 02:00 to 03:00; 1 November 2026: from 02:00 back to 01:00.
        let skipped = LocalDelivery(time: Timestamp.parseLocal("2026-03-08T02:30")!, defaultTimeZone: utc)
        #expect(skipped.instant(in: "America/New_York") == Self.utc("2026-03-08T07:00:00Z"))
        let repeated = LocalDelivery(time: Timestamp.parseLocal("2026-11-01T01:30")!, defaultTimeZone: utc)
        #expect(repeated.instant(in: "America/New_York") == Self.utc("2026-11-01T05:30:00Z"))
        let lateEvening = LocalDelivery(time: Timestamp.parseLocal("2026-12-01T23:00:00")!, defaultTimeZone: utc)
        #expect(lateEvening.instant(in: "Asia/Tokyo") == Self.utc("2026-12-01T14:00:00Z"))
    }

    @Test(arguments: Engine.allCases) func aTimeAlreadyPastInAZoneFallsDueAtOnce(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("tokyo", zone: "Asia/Tokyo", in: store)
            try await register("new-york", zone: "America/New_York", in: store)
            _ = try await send(at: "2026-11-02T09:00:00", now: Self.utc("2026-11-02T10:00:00Z"), in: store)
            #expect(try await due(at: "2026-11-02T10:00:00Z", in: store) == ["tokyo"])
            #expect(try await due(at: "2026-11-02T14:00:00Z", in: store) == ["new-york"])
        }
    }
}
