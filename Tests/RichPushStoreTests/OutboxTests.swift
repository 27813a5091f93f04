import Foundation
import Logging
import RichPushCore
import RichPushStore
import Testing

@Suite("The outbox")
struct OutboxTests {
    @Test(arguments: Engine.allCases) func creatingANotificationWritesOneDeliveryPerAddressedInstallation(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", tags: ["topic:sale"])
            try await store.register("a2", owner: "alice")
            try await store.register("b1", owner: "bob", tags: ["topic:sale", "lang:fr"])
            try await store.register("c1", owner: "carol", tags: ["topic:news"])
            let (notification, _) = try await store.send("username:alice || (topic:sale && !lang:fr)")
            let jobs = try await store.outbox.claimDue(limit: 100, lease: 60)
            #expect(Set(jobs.map(\.installationId)) == ["a1", "a2"])
            #expect(jobs.allSatisfy { $0.notificationId == notification.id && $0.attempt == 1 })
        }
    }

    @Test(arguments: Engine.allCases) func aBatchOfOneDeviceNoticesToManyUsersIsLeasedAndRecordedWhole(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let users = (0..<40).map { "user\($0)" }
            var notifications: [Int64] = []
            for user in users {
                try await store.register("\(user)-phone", owner: user)
                notifications.append(try await store.send("username:\(user)").notification.id)
            }
            let jobs = try await store.outbox.claimDue(limit: 100, lease: 60)
            #expect(Set(jobs.map(\.notificationId)) == Set(notifications))
            try await store.outbox.extendLease(of: jobs.deliveries, by: 60)
            try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) })
            for id in notifications {
                #expect(try await store.results.counts(notificationId: id).tally == DeliveryTally(sent: 1))
            }
            #expect(try await store.outbox.claimDue(now: .now + 120, limit: 100, lease: 60).isEmpty)
        }
    }

    @Test(arguments: Engine.allCases) func anExpressionWithoutRequiredTagsIsEvaluatedAgainstEveryInstallation(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", tags: ["lang:fr"])
            try await store.register("b1", owner: "bob")
            _ = try await store.send("!lang:fr")
            #expect(try await store.outbox.claimDue(limit: 100, lease: 60).map(\.installationId) == ["b1"])
        }
    }

    @Test(arguments: Engine.allCases) func theDatabaseAddressesExactlyTheInstallationsAnExpressionMatches(_ engine: Engine) async throws {
        let topics = ["topic:sale", "topic:news", "lang:fr", "lang:de", "vip"]
        // Every combination of the five tags, on installations of three owners: 96 installations.
        let installations = (0..<96).map { index in
            (id: "i\(index)", owner: ["alice", "bob", "carol"][index % 3], tags: topics.indices.filter { index >> $0 & 1 == 1 }.map { topics[$0] })
        }
        let expressions = [
            "topic:sale", "topic:sale || vip", "topic:sale && !lang:fr", "!lang:fr", "!(topic:sale || topic:news)",
            "(topic:sale || topic:news) && !lang:fr || lang:de && vip", "!vip && !lang:de && username:bob", "username:dave || vip",
            "platform:direct && !(vip && lang:fr)",
        ]
        try await withStore(engine) { store in
            for installation in installations {
                try await store.register(installation.id, owner: installation.owner, tags: installation.tags)
            }
            for text in expressions {
                let expression = try TagExpression(parsing: text)
                let expected = installations.filter { installation in
                    expression.matches(
                        Set(installation.tags + ["username:\(installation.owner)", "installation:\(installation.id)", "platform:direct"]))
                }
                let size = try await store.installations.audienceSize(expression)
                #expect(size.installations == expected.count, "\(text)")
                #expect(size.recipients == Set(expected.map(\.owner)).count, "\(text)")
                let (notification, _) = try await store.send(text)
                let jobs = try await store.outbox.claimDue(limit: 500, lease: 60)
                #expect(jobs.allSatisfy { $0.notificationId == notification.id })
                #expect(jobs.map(\.installationId).sorted() == expected.map(\.id).sorted(), "\(text)")
                try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) })
            }
        }
    }

    @Test(arguments: Engine.allCases)
    func theDatabaseAddressesExactlyTheInstallationsThatDeviceFieldExpressionsMatch(_ engine: Engine) async throws {
        let versions: [String?] = ["2.9", "2.10", "2.3", "2.3.0", "3", nil, "2.3-beta"]
        let languages: [String?] = ["fr-CA", "fr", "de", nil]
        let zones: [String?] = ["Europe/Berlin", "America/New_York", nil]
        var installations: [InstallationRecord] = []
        for (index, version) in versions.enumerated() {
            for (languageIndex, language) in languages.enumerated() {
                let zone = zones[(index + languageIndex) % zones.count]
                installations.append(
                    InstallationRecord(
                        id: "i\(index)-\(languageIndex)", owner: ["alice", "bob"][index % 2], platform: .direct,
                        pushChannel: "i\(index)-\(languageIndex)", tags: languageIndex == 0 ? ["vip"] : [], appVersion: version, timeZone: zone,
                        language: language, createdAt: .now, updatedAt: .now))
            }
        }
        let expressions = [
            "appVersion >= 2.10", "appVersion < 2.10 && language:fr", "!(appVersion == 2.3)", "appVersion > 2.9 || timezone:America/New_York",
            "language:fr-ca", "!language:fr && appVersion <= 3", "appVersion == 2.3.0", "vip && appVersion < 3", "timezone:Europe/Berlin",
        ]
        try await withStore(engine) { store in
            for installation in installations { try await store.installations.upsert(installation) }
            for text in expressions {
                let expression = try TagExpression(parsing: text)
                let expected = installations.filter { expression.matches($0.allTags) }.map(\.id).sorted()
                #expect(try await store.installations.audienceSize(expression).installations == expected.count, "\(text)")
                _ = try await store.send(text)
                let jobs = try await store.outbox.claimDue(limit: 500, lease: 60)
                #expect(jobs.map(\.installationId).sorted() == expected, "\(text)")
                try await store.outbox.recordOutcomes(jobs.map { ($0, .sent) })
            }
        }
    }

    @Test(arguments: Engine.allCases) func everyRecipientFindsTheNotificationInTheirFeedAtADistinctPlace(_ engine: Engine) async throws {
        let owners = (0..<300).map { "user\($0)" }
        try await withStore(engine) { store in
            for owner in owners { try await store.register("\(owner)-phone", owner: owner, tags: ["topic:sale"]) }
            let (notification, _) = try await store.send("topic:sale")
            var sequence: [Int64] = []
            for owner in owners {
                let feed = try await store.feeds.items(username: owner, since: nil, limit: 10)
                #expect(feed.items.map(\.id) == [notification.id], "\(owner)")
                sequence += feed.items.map(\.seq)
            }
            // Each entry has its own place in the sequence that feed sync pages through.
            #expect(Set(sequence).count == owners.count)
            #expect(sequence.max()! - sequence.min()! == Int64(owners.count - 1))
        }
    }

    @Test(arguments: Engine.allCases) func aClaimedDeliveryIsNotClaimedAgainUntilItsLeaseRunsOut(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            _ = try await store.send("username:alice")
            let now = Date.now
            #expect(try await store.outbox.claimDue(now: now, limit: 10, lease: 60).count == 1)
            #expect(try await store.outbox.claimDue(now: now + 1, limit: 10, lease: 60).isEmpty)
            let reclaimed = try await store.outbox.claimDue(now: now + 61, limit: 10, lease: 60)
            #expect(reclaimed.count == 1)
            #expect(reclaimed.first?.attempt == 2)
        }
    }

    @Test(arguments: Engine.allCases)
    func deliveriesWhoseLeaseRanOutWhileAFanOutGoesOnAreClaimedAgainWithinASecond(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for index in 0..<22 { try await store.register("i\(index)", owner: "alice") }
            _ = try await store.send("username:alice")
            let start = Date.now
            let abandoned = try await store.outbox.claimDue(now: start, limit: 2, lease: 0.5)
            var claims: [(at: TimeInterval, jobs: ClaimedBatch)] = []
            for step in 1...12 {
                let at = Double(step) / 5
                claims.append((at, try await store.outbox.claimDue(now: start + at, limit: 2, lease: 60)))
            }
            let reclaimed = try #require(claims.first { claim in claim.jobs.contains { $0.deliveryId == abandoned[0].deliveryId } })
            #expect(Set(reclaimed.jobs.map(\.deliveryId)) == Set(abandoned.map(\.deliveryId)))
            #expect(reclaimed.jobs.allSatisfy { $0.attempt == 2 })
            #expect(reclaimed.at <= 0.5 + 1)
            let claimedOnce = claims.flatMap(\.jobs).filter { $0.attempt == 1 }.map(\.installationId)
            #expect(claimedOnce.sorted() == (2..<22).map { "i\($0)" }.sorted())
        }
    }

    @Test(arguments: Engine.allCases)
    func aClaimReadingOnFromTheLastOneTakesTheRestOfItsInstantAndThenDeliveriesDueLater(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for index in 0..<3 { try await store.register("i\(index)", owner: "alice") }
            try await store.register("b0", owner: "bob")
            _ = try await store.send("username:alice")
            let start = Date.now
            _ = try await store.send("username:bob", deliverAt: start + 0.2)
            let first = try await store.outbox.claimDue(now: start, limit: 2, lease: 60)
            let second = try await store.outbox.claimDue(now: start + 0.4, limit: 10, lease: 60)
            #expect(first.count == 2)
            #expect(Set(second.map(\.installationId)) == Set(["i0", "i1", "i2", "b0"]).subtracting(first.map(\.installationId)))
        }
    }

    @Test(arguments: Engine.allCases) func aScheduledDeliveryIsNotDueBeforeItsTime(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let later = Date.now + 3600
            _ = try await store.send("username:alice", deliverAt: later)
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).isEmpty)
            #expect(try await store.outbox.claimDue(now: later + 1, limit: 10, lease: 60).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func deliveriesOfAnExpiredNotificationAreMarkedExpiredInsteadOfSent(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice", deliverAt: .now + 10, expiresAt: .now + 20)
            #expect(try await store.outbox.claimDue(now: .now + 30, limit: 10, lease: 60).isEmpty)
            let counts = try await store.results.counts(notificationId: notification.id)
            #expect(counts.tally == DeliveryTally(expired: 1))
            #expect(counts.errors.first?.code == "notification.expired")
        }
    }

    @Test(arguments: Engine.allCases) func anAnswerArrivingAfterItsNotificationWasCanceledLeavesTheDeliveryCanceled(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for id in ["a1", "a2"] { try await store.register(id, owner: "alice") }
            let (notification, _) = try await store.send("username:alice")
            let jobs = try await store.outbox.claimDue(limit: 10, lease: 60)
            #expect(try await store.notifications.remove(id: notification.id)?.outcome == .canceled)
            try await store.outbox.recordOutcomes([(jobs[0], .sent), (jobs[1], .failed(code: "hub.rejected", message: "no"))])
            #expect(try await store.results.counts(notificationId: notification.id).tally == DeliveryTally(canceled: 2))
        }
    }

    @Test(arguments: Engine.allCases)
    func aScheduledNotificationCanceledBeforeItsTimeLeavesNothingDueOnceADispatcherHasLooked(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for id in ["a1", "a2"] { try await store.register(id, owner: "alice") }
            let start = Date.now
            let (notification, _) = try await store.send("username:alice", deliverAt: start + 10)
            #expect(try await store.notifications.remove(id: notification.id, now: start)?.outcome == .canceled)
            #expect(try await store.outbox.claimDue(now: start + 11, limit: 10, lease: 60).isEmpty)
            #expect(try await store.outbox.nextDeliveryDue(now: start + 11) == nil)
            #expect(try await store.results.counts(notificationId: notification.id).tally == DeliveryTally(canceled: 2))
        }
    }

    @Test(arguments: Engine.allCases) func outcomesAreRecordedPerDelivery(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for id in ["a1", "a2", "a3", "a4"] { try await store.register(id, owner: "alice") }
            let (notification, _) = try await store.send("username:alice")
            let jobs = try await store.outbox.claimDue(limit: 10, lease: 60)
            try await store.outbox.recordOutcomes([
                (jobs[0], .sent), (jobs[1], .failed(code: "x.bad", message: "bad")),
                (jobs[2], .retry(after: 30, code: "x.later", message: "later")), (jobs[3], .deviceGone(code: "x.gone", message: "gone")),
            ])
            let counts = try await store.results.counts(notificationId: notification.id)
            #expect(counts.tally == DeliveryTally(pending: 1, sent: 1, failed: 2))
            #expect(Set(counts.errors.map(\.code)) == ["x.bad", "x.gone"])
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).isEmpty)
            #expect(try await store.outbox.claimDue(now: .now + 31, limit: 10, lease: 60).map(\.installationId) == [jobs[2].installationId])
        }
    }

    @Test(arguments: Engine.allCases) func aRetriedDeliveryIsClaimedAfterItsDelayAsItsSecondAttempt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for id in ["a1", "a2"] { try await store.register(id, owner: "alice") }
            _ = try await store.send("username:alice")
            let now = Date.now
            let jobs = try await store.outbox.claimDue(now: now, limit: 10, lease: 60)
            try await store.outbox.recordOutcomes([(jobs[0], .sent), (jobs[1], .retry(after: 30, code: "x.later", message: "later"))], now: now)
            #expect(try await store.outbox.claimDue(now: now + 29, limit: 10, lease: 60).isEmpty)
            let retried = try await store.outbox.claimDue(now: now + 31, limit: 10, lease: 60)
            #expect(retried.map(\.deliveryId) == [jobs[1].deliveryId])
            #expect(retried.map(\.attempt) == [2])
        }
    }

    @Test(arguments: Engine.allCases) func outcomesOfScatteredDeliveriesReachExactlyThoseDeliveries(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let (notification, jobs, now) = try await store.claimedDeliveriesToAlice(10)
            #expect(jobs.map(\.deliveryId) == jobs.map(\.deliveryId).sorted())
            let sent = [0, 1, 2, 5, 7, 8].map { jobs[$0] }
            try await store.outbox.recordOutcomes(sent.map { ($0, .sent) })
            #expect(try await store.results.counts(notificationId: notification.id).tally == DeliveryTally(pending: 4, sent: 6))
            let reclaimed = try await store.outbox.claimDue(now: now + 61, limit: 10, lease: 60)
            #expect(reclaimed.map(\.deliveryId) == [3, 4, 6, 9].map { jobs[$0].deliveryId })
        }
    }

    /// A batch's outcomes that share their error are written together: each still reaches exactly its delivery, and
    /// a device gone exactly its installation.
    @Test(arguments: Engine.allCases) func failuresAndRetriesSharingTheirErrorReachExactlyTheirDeliveriesAndDevices(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let (notification, jobs, now) = try await store.claimedDeliveriesToAlice(8)
            let gone = DeliveryOutcome.deviceGone(code: "apns.Unregistered", message: "gone")
            let throttled = DeliveryOutcome.retry(after: 30, code: "apns.TooManyRequests", message: "later")
            try await store.outbox.recordOutcomes(
                [
                    (jobs[0], gone), (jobs[1], .sent), (jobs[2], gone), (jobs[3], .failed(code: "apns.BadDeviceToken", message: "bad")),
                    (jobs[4], throttled), (jobs[5], throttled), (jobs[6], .retry(after: 90, code: "apns.TooManyRequests", message: "later")),
                    (jobs[7], gone),
                ], now: now)
            let counts = try await store.results.counts(notificationId: notification.id)
            #expect(counts.tally == DeliveryTally(pending: 3, sent: 1, failed: 4))
            #expect(
                counts.errors.map { "\($0.installationId) \($0.code)" }
                    == [0, 2, 3, 7].map { index in
                        "\(jobs[index].installationId) \(index == 3 ? "apns.BadDeviceToken" : "apns.Unregistered")"
                    })
            for (index, job) in jobs.enumerated() {
                let deadReason = try await store.installations.installation(id: job.installationId)?.deadReason
                #expect(deadReason == ([0, 2, 7].contains(index) ? "apns.Unregistered" : nil), "\(job.installationId)")
            }
            #expect(try await store.outbox.claimDue(now: now + 31, limit: 10, lease: 600).map(\.deliveryId) == [4, 5].map { jobs[$0].deliveryId })
            let later = try await store.outbox.claimDue(now: now + 91, limit: 10, lease: 60)
            #expect(later.map(\.deliveryId) == [jobs[6].deliveryId])
            #expect(later.map(\.attempt) == [2])
        }
    }

    @Test(arguments: Engine.allCases) func aClaimedDeliveryCarriesWhatItsHubNeedsOfTheNotification(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", platform: .apns)
            let expiresAt = Date(timeIntervalSince1970: (Date.now + 3600).timeIntervalSince1970.rounded(.down))
            let (notification, _) = try await store.send("username:alice", expiresAt: expiresAt)
            let job = try #require(try await store.claimJobs(limit: 10, lease: 60).first)
            #expect(job.notificationId == notification.id)
            #expect(job.push.richMessage == "Hello")
            #expect(job.push.richType == .text)
            #expect(job.pushStyle == .silent)
            #expect(job.audience == "username:alice")
            #expect(job.expiresAt == expiresAt)
            #expect(job.installationId == "a1")
            #expect(job.owner == "alice")
            #expect(job.platform == .apns)
            #expect(job.pushChannel == "a1-channel")
            #expect(job.attempt == 1)
        }
    }

    @Test(arguments: Engine.allCases) func aGoneDeviceIsNotAddressedAgainUntilItRegistersAnew(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            _ = try await store.send("username:alice")
            let job = try await store.outbox.claimDue(limit: 10, lease: 60)[0]
            try await store.outbox.recordOutcomes([(job, .deviceGone(code: "apns.unregistered", message: "gone"))])
            #expect(try await store.installations.installation(id: "a1")?.deadReason == "apns.unregistered")
            _ = try await store.send("username:alice")
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).isEmpty)
            try await store.register("a1", owner: "alice")
            _ = try await store.send("username:alice")
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func theSameIdempotencyKeyReturnsTheFirstNotificationAndWritesNothing(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let first = try await store.send("username:alice", key: "campaign-7")
            let second = try await store.send("username:alice", key: "campaign-7")
            #expect(first.created && !second.created)
            #expect(first.notification.id == second.notification.id)
            #expect(try await store.outbox.claimDue(limit: 10, lease: 60).count == 1)
            let otherSender = try await store.send("username:alice", by: "ann", key: "campaign-7")
            #expect(otherSender.created)
        }
    }

    @Test func reopeningAnExclusiveStoreReleasesTheClaimsOfTheDeadProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await Store.openSQLite(directory: directory.path, logger: Logger(label: "test"))
        try await first.register("a1", owner: "alice")
        _ = try await first.send("username:alice")
        #expect(try await first.outbox.claimDue(limit: 10, lease: 600).count == 1)
        try await first.close()
        let second = try await Store.openSQLite(directory: directory.path, logger: Logger(label: "test"))
        #expect(try await second.outbox.claimDue(limit: 10, lease: 600).count == 1)
        try await second.close()
    }
}
