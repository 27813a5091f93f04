import Foundation
import RichPushCore
import RichPushStore
import Testing

@Suite("Frequency caps and quiet hours")
struct CampaignLimitsTests {
    static func utc(_ text: String) -> Date { Timestamp.parse(text)! }
    static let twoPerDay = CampaignLimits(frequencyCap: FrequencyCap(parsing: "2/24h")!)
    static let nights = CampaignLimits(quietHours: QuietHours(parsing: "22:00-08:00")!)

    func register(_ id: String, owner: String = "alice", zone: String? = nil, in store: Store) async throws {
        try await store.installations.upsert(
            InstallationRecord(id: id, owner: owner, platform: .direct, pushChannel: id, tags: [], timeZone: zone, createdAt: .now, updatedAt: .now)
        )
    }

    func campaign(
        to audience: String = "username:alice", at now: Date, expiresAt: Date? = nil, purpose: NotificationPurpose = .marketing,
        in store: Store
    ) async throws -> Int64 {
        try await store.notifications.create(
            NotificationDraft(
                message: "Sale", payload: .text("t"), audience: try TagExpression(parsing: audience), pushStyle: .silent, deliverAt: now,
                expiresAt: expiresAt, createdBy: "mark", idempotencyKey: nil, purpose: purpose),
            now: now
        ).notification.id
    }

    /// The installations a dispatcher held to `limits` sends to at `now`, recorded as sent, sorted.
    func sent(at now: Date, limits: CampaignLimits, in store: Store) async throws -> [String] {
        let jobs = try await store.outbox.claimDue(now: now, limit: 100, lease: 60, limits: limits)
        try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) }, now: now)
        return jobs.map(\.installationId).sorted()
    }

    @Test(arguments: Engine.allCases) func aCapOfTwoPerDayLetsExactlyTwoOfThreeCampaignsReachAUser(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("phone", in: store)
            try await register("laptop", in: store)
            let now = Self.utc("2026-11-02T10:00:00Z")
            let campaigns = [
                try await campaign(at: now, in: store), try await campaign(at: now, in: store), try await campaign(at: now, in: store),
            ]
            #expect(try await sent(at: now, limits: Self.twoPerDay, in: store) == ["laptop", "laptop", "phone", "phone"])
            let tallies = try await campaigns.asyncMap { try await store.results.counts(notificationId: $0).tally }
            #expect(tallies.map(\.sent) == [2, 2, 0])
            #expect(tallies.map(\.capped) == [0, 0, 2])
        }
    }

    @Test(arguments: Engine.allCases) func aCampaignPastTheCapsPeriodReachesTheUserAgain(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("phone", in: store)
            let morning = Self.utc("2026-11-02T10:00:00Z")
            _ = try await campaign(at: morning, in: store)
            _ = try await campaign(at: morning, in: store)
            #expect(try await sent(at: morning, limits: Self.twoPerDay, in: store) == ["phone", "phone"])
            let almostADayLater = Self.utc("2026-11-03T09:59:59Z")
            _ = try await campaign(at: almostADayLater, in: store)
            #expect(try await sent(at: almostADayLater, limits: Self.twoPerDay, in: store) == [])
            let aDayLater = Self.utc("2026-11-03T10:00:00Z")
            _ = try await campaign(at: aDayLater, in: store)
            #expect(try await sent(at: aDayLater, limits: Self.twoPerDay, in: store) == ["phone"])
        }
    }

    @Test(arguments: Engine.allCases) func transactionalNotificationsNeitherCountNorGetCapped(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("phone", in: store)
            let now = Self.utc("2026-11-02T10:00:00Z")
            _ = try await campaign(at: now, purpose: .transactional, in: store)
            _ = try await campaign(at: now, in: store)
            _ = try await campaign(at: now, in: store)
            _ = try await campaign(at: now, purpose: .transactional, in: store)
            #expect(try await sent(at: now, limits: Self.twoPerDay, in: store) == ["phone", "phone", "phone", "phone"])
        }
    }

    @Test(arguments: Engine.allCases) func eachUserHasACapOfTheirOwn(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("alice-phone", in: store)
            try await register("bob-phone", owner: "bob", in: store)
            let now = Self.utc("2026-11-02T10:00:00Z")
            _ = try await campaign(to: "username:alice", at: now, in: store)
            _ = try await campaign(to: "username:alice || username:bob", at: now, in: store)
            #expect(
                try await sent(at: now, limits: CampaignLimits(frequencyCap: FrequencyCap(parsing: "1/24h")!), in: store) == [
                    "alice-phone", "bob-phone",
                ])
        }
    }

    @Test(arguments: Engine.allCases) func twoProcessesSendingToOneUserAtOnceNeverExceedTheCap(_ engine: Engine) async throws {
        try await withDispatchers(engine, count: 2) { stores in
            let limits = CampaignLimits(frequencyCap: FrequencyCap(parsing: "3/24h")!)
            try await register("phone", in: stores[0])
            try await register("tablet", in: stores[0])
            for _ in 0..<12 { _ = try await campaign(at: .now, in: stores[0]) }
            async let first = stores[0].claimAll(batch: 1, limits: limits)
            async let second = stores[1].claimAll(batch: 1, limits: limits)
            let claimed = try await first + second
            #expect(claimed.count == 6)
        }
    }

    @Test(arguments: Engine.allCases) func aCampaignFallingDueInQuietHoursWaitsUntilTheyEndOnEachDevicesClock(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("berlin", zone: "Europe/Berlin", in: store)
            try await register("new-york", zone: "America/New_York", in: store)
            try await register("tokyo", zone: "Asia/Tokyo", in: store)
            // 23:30 in Berlin, 18:30 in New York and 07:30 in Tokyo.
            let now = Self.utc("2026-11-02T22:30:00Z")
            _ = try await campaign(at: now, in: store)
            #expect(try await sent(at: now, limits: Self.nights, in: store) == ["new-york"])
            #expect(try await store.outbox.nextDeliveryDue(now: now) == Self.utc("2026-11-02T23:00:00Z"))
            #expect(try await sent(at: Self.utc("2026-11-02T22:59:59Z"), limits: Self.nights, in: store) == [])
            #expect(try await sent(at: Self.utc("2026-11-02T23:00:00Z"), limits: Self.nights, in: store) == ["tokyo"])
            #expect(try await sent(at: Self.utc("2026-11-03T06:59:59Z"), limits: Self.nights, in: store) == [])
            #expect(try await sent(at: Self.utc("2026-11-03T07:00:00Z"), limits: Self.nights, in: store) == ["berlin"])
        }
    }

    @Test(arguments: Engine.allCases) func waitingOutQuietHoursIsNotADeliveryAttempt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("berlin", zone: "Europe/Berlin", in: store)
            _ = try await campaign(at: Self.utc("2026-11-02T22:30:00Z"), in: store)
            _ = try await store.outbox.claimDue(now: Self.utc("2026-11-02T22:30:00Z"), limit: 10, lease: 60, limits: Self.nights)
            let jobs = try await store.outbox.claimDue(now: Self.utc("2026-11-03T07:00:00Z"), limit: 10, lease: 60, limits: Self.nights)
            #expect(jobs.map(\.attempt) == [1])
        }
    }

    @Test(arguments: Engine.allCases) func aCampaignThatExpiresDuringQuietHoursIsNeverSent(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("berlin", zone: "Europe/Berlin", in: store)
            let id = try await campaign(at: Self.utc("2026-11-02T22:30:00Z"), expiresAt: Self.utc("2026-11-03T06:00:00Z"), in: store)
            #expect(try await sent(at: Self.utc("2026-11-02T22:30:00Z"), limits: Self.nights, in: store) == [])
            #expect(try await sent(at: Self.utc("2026-11-03T07:00:00Z"), limits: Self.nights, in: store) == [])
            #expect(try await store.results.counts(notificationId: id).tally.expired == 1)
        }
    }

    @Test(arguments: Engine.allCases) func quietHoursDoNotHoldATransactionalNotification(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await register("berlin", zone: "Europe/Berlin", in: store)
            let now = Self.utc("2026-11-02T22:30:00Z")
            _ = try await campaign(at: now, purpose: .transactional, in: store)
            #expect(try await sent(at: now, limits: Self.nights, in: store) == ["berlin"])
        }
    }

    @Test func quietHoursAcrossMidnightEndOnTheDevicesNextMorningEvenWhenItsClocksChange() {
        let nights = QuietHours(parsing: "22:00-08:00")!
        let newYork = TimeZone(identifier: "America/New_York")!
        // The night of 31 October 2026 in New York is an hour longer: at 08:00 EST it is 13:00 UTC.
        #expect(nights.end(after: Self.utc("2026-11-01T03:00:00Z"), in: newYork) == Self.utc("2026-11-01T13:00:00Z"))
        #expect(nights.end(after: Self.utc("2026-11-01T14:00:00Z"), in: newYork) == nil)
        let lunch = QuietHours(parsing: "12:00-13:30")!
        #expect(lunch.end(after: Self.utc("2026-11-02T12:15:00Z"), in: TimeZone(identifier: "UTC")!) == Self.utc("2026-11-02T13:30:00Z"))
        #expect(lunch.end(after: Self.utc("2026-11-02T13:30:00Z"), in: TimeZone(identifier: "UTC")!) == nil)
    }

    @Test func capsAndQuietHoursAreReadAsPeopleWriteThem() {
        #expect(FrequencyCap(parsing: "3/24h") == FrequencyCap(count: 3, period: 86_400))
        #expect(FrequencyCap(parsing: "1/1d12h") == FrequencyCap(count: 1, period: 129_600))
        #expect(FrequencyCap(parsing: "0/24h") == nil)
        #expect(FrequencyCap(parsing: "3") == nil)
        #expect(FrequencyCap(parsing: "3/soon") == nil)
        #expect(QuietHours(parsing: "22:00-08:00") == QuietHours(start: 1320, end: 480))
        #expect(QuietHours(parsing: "22:00-22:00") == nil)
        #expect(QuietHours(parsing: "24:00-08:00") == nil)
        #expect(QuietHours(parsing: "10pm-8am") == nil)
        #expect(QuietHours(start: 1320, end: 480).description == "22:00-08:00")
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
