import Foundation
import Logging
import RichPushCore
import RichPushStore
import Testing

extension Store {
    @discardableResult
    func register(_ id: String, owner: String, platform: Platform = .direct, tags: [String] = []) async throws -> InstallationRecord {
        try await upsertInstallation(
            InstallationRecord(id: id, owner: owner, platform: platform, pushChannel: "\(id)-channel", tags: tags, createdAt: .now, updatedAt: .now)
        ).record
    }

    func send(_ audience: String, by sender: String = "mark", deliverAt: Date = .now, expiresAt: Date? = nil, key: String? = nil) async throws
        -> (notification: NotificationRecord, created: Bool)
    {
        try await createNotification(
            NotificationDraft(
                message: "Hello", payload: .text("Body"), audience: try TagExpression(parsing: audience), pushStyle: .silent,
                deliverAt: deliverAt, expiresAt: expiresAt, createdBy: sender, idempotencyKey: key))
    }
}

@Suite("The outbox")
struct OutboxTests {
    @Test(arguments: Engine.allCases) func creatingANotificationWritesOneDeliveryPerAddressedInstallation(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", tags: ["topic:sale"])
            try await store.register("a2", owner: "alice")
            try await store.register("b1", owner: "bob", tags: ["topic:sale", "lang:fr"])
            try await store.register("c1", owner: "carol", tags: ["topic:news"])
            let (notification, _) = try await store.send("username:alice || (topic:sale && !lang:fr)")
            let jobs = try await store.claimDueDeliveries(limit: 100, lease: 60)
            #expect(Set(jobs.map(\.installationId)) == ["a1", "a2"])
            #expect(jobs.allSatisfy { $0.notificationId == notification.id && $0.attempt == 1 })
        }
    }

    @Test(arguments: Engine.allCases) func anExpressionWithoutRequiredTagsIsEvaluatedAgainstEveryInstallation(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", tags: ["lang:fr"])
            try await store.register("b1", owner: "bob")
            _ = try await store.send("!lang:fr")
            #expect(try await store.claimDueDeliveries(limit: 100, lease: 60).map(\.installationId) == ["b1"])
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
                let size = try await store.audienceSize(expression)
                #expect(size.installations == expected.count, "\(text)")
                #expect(size.recipients == Set(expected.map(\.owner)).count, "\(text)")
                let (notification, _) = try await store.send(text)
                let jobs = try await store.claimDueDeliveries(limit: 500, lease: 60)
                #expect(jobs.allSatisfy { $0.notificationId == notification.id })
                #expect(jobs.map(\.installationId).sorted() == expected.map(\.id).sorted(), "\(text)")
                try await store.recordOutcomes(jobs.map { ($0, .sent) })
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
                let feed = try await store.feed(username: owner, since: nil, limit: 10)
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
            #expect(try await store.claimDueDeliveries(now: now, limit: 10, lease: 60).count == 1)
            #expect(try await store.claimDueDeliveries(now: now + 1, limit: 10, lease: 60).isEmpty)
            let reclaimed = try await store.claimDueDeliveries(now: now + 61, limit: 10, lease: 60)
            #expect(reclaimed.count == 1)
            #expect(reclaimed.first?.attempt == 2)
        }
    }

    @Test(arguments: Engine.allCases) func aScheduledDeliveryIsNotDueBeforeItsTime(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let later = Date.now + 3600
            _ = try await store.send("username:alice", deliverAt: later)
            #expect(try await store.claimDueDeliveries(limit: 10, lease: 60).isEmpty)
            #expect(try await store.claimDueDeliveries(now: later + 1, limit: 10, lease: 60).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func deliveriesOfAnExpiredNotificationAreMarkedExpiredInsteadOfSent(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice", deliverAt: .now + 10, expiresAt: .now + 20)
            #expect(try await store.claimDueDeliveries(now: .now + 30, limit: 10, lease: 60).isEmpty)
            let counts = try await store.counts(notificationId: notification.id)
            #expect(counts.tally == DeliveryTally(expired: 1))
            #expect(counts.errors.first?.code == "notification.expired")
        }
    }

    @Test(arguments: Engine.allCases) func outcomesAreRecordedPerDelivery(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for id in ["a1", "a2", "a3", "a4"] { try await store.register(id, owner: "alice") }
            let (notification, _) = try await store.send("username:alice")
            let jobs = try await store.claimDueDeliveries(limit: 10, lease: 60)
            try await store.recordOutcomes([
                (jobs[0], .sent), (jobs[1], .failed(code: "x.bad", message: "bad")),
                (jobs[2], .retry(after: 30, code: "x.later", message: "later")), (jobs[3], .deviceGone(code: "x.gone", message: "gone")),
            ])
            let counts = try await store.counts(notificationId: notification.id)
            #expect(counts.tally == DeliveryTally(pending: 1, sent: 1, failed: 2))
            #expect(Set(counts.errors.map(\.code)) == ["x.bad", "x.gone"])
            #expect(try await store.claimDueDeliveries(limit: 10, lease: 60).isEmpty)
            #expect(try await store.claimDueDeliveries(now: .now + 31, limit: 10, lease: 60).map(\.installationId) == [jobs[2].installationId])
        }
    }

    @Test(arguments: Engine.allCases) func outcomesOfScatteredDeliveriesReachExactlyThoseDeliveries(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            for index in 0..<10 { try await store.register("a\(index)", owner: "alice") }
            let (notification, _) = try await store.send("username:alice")
            let now = Date.now
            let jobs = try await store.claimDueDeliveries(now: now, limit: 10, lease: 60)
            #expect(jobs.map(\.deliveryId) == jobs.map(\.deliveryId).sorted())
            let sent = [0, 1, 2, 5, 7, 8].map { jobs[$0] }
            try await store.recordOutcomes(sent.map { ($0, .sent) })
            #expect(try await store.counts(notificationId: notification.id).tally == DeliveryTally(pending: 4, sent: 6))
            let reclaimed = try await store.claimDueDeliveries(now: now + 61, limit: 10, lease: 60)
            #expect(reclaimed.map(\.deliveryId) == [3, 4, 6, 9].map { jobs[$0].deliveryId })
        }
    }

    @Test(arguments: Engine.allCases) func aClaimedDeliveryCarriesWhatItsHubNeedsOfTheNotification(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", platform: .apns)
            let expiresAt = Date(timeIntervalSince1970: (Date.now + 3600).timeIntervalSince1970.rounded(.down))
            let (notification, _) = try await store.send("username:alice", expiresAt: expiresAt)
            let job = try #require(try await store.claimDueDeliveries(limit: 10, lease: 60).first)
            #expect(job.notificationId == notification.id)
            #expect(job.message == "Hello")
            #expect(job.richType == .text)
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
            let job = try await store.claimDueDeliveries(limit: 10, lease: 60)[0]
            try await store.recordOutcomes([(job, .deviceGone(code: "apns.unregistered", message: "gone"))])
            #expect(try await store.installation(id: "a1")?.deadReason == "apns.unregistered")
            _ = try await store.send("username:alice")
            #expect(try await store.claimDueDeliveries(limit: 10, lease: 60).isEmpty)
            try await store.register("a1", owner: "alice")
            _ = try await store.send("username:alice")
            #expect(try await store.claimDueDeliveries(limit: 10, lease: 60).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func theSameIdempotencyKeyReturnsTheFirstNotificationAndWritesNothing(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let first = try await store.send("username:alice", key: "campaign-7")
            let second = try await store.send("username:alice", key: "campaign-7")
            #expect(first.created && !second.created)
            #expect(first.notification.id == second.notification.id)
            #expect(try await store.claimDueDeliveries(limit: 10, lease: 60).count == 1)
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
        #expect(try await first.claimDueDeliveries(limit: 10, lease: 600).count == 1)
        try await first.close()
        let second = try await Store.openSQLite(directory: directory.path, logger: Logger(label: "test"))
        #expect(try await second.claimDueDeliveries(limit: 10, lease: 600).count == 1)
        try await second.close()
    }
}

@Suite("Installations in the store")
struct InstallationStoreTests {
    @Test(arguments: Engine.allCases) func everyInstallationCarriesItsAutomaticTags(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let record = try await store.register("phone", owner: "alice", platform: .apns, tags: ["topic:sale"])
            #expect(record.allTags == ["topic:sale", "username:alice", "installation:phone", "platform:apns"])
        }
    }

    @Test(arguments: Engine.allCases) func aPushChannelMovesToTheInstallationThatRegistersIt(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.upsertInstallation(
                InstallationRecord(id: "old", owner: "alice", platform: .fcm, pushChannel: "token", tags: [], createdAt: .now, updatedAt: .now))
            let (_, created) = try await store.upsertInstallation(
                InstallationRecord(id: "new", owner: "alice", platform: .fcm, pushChannel: "token", tags: [], createdAt: .now, updatedAt: .now))
            #expect(created)
            #expect(try await store.installation(id: "old") == nil)
            #expect(try await store.installation(id: "new")?.pushChannel == "token")
        }
    }

    @Test(arguments: Engine.allCases) func anotherUsersInstallationIdIsRefused(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("shared", owner: "alice")
            await #expect(throws: StoreError.installationOwnedByAnother) { try await store.register("shared", owner: "bob") }
        }
    }

    @Test(arguments: Engine.allCases) func updatingReplacesTheTags(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice", tags: ["topic:sale"])
            try await store.register("a1", owner: "alice", tags: ["topic:news"])
            _ = try await store.send("topic:sale")
            #expect(try await store.claimDueDeliveries(limit: 10, lease: 60).isEmpty)
            _ = try await store.send("topic:news")
            #expect(try await store.claimDueDeliveries(limit: 10, lease: 60).count == 1)
        }
    }
}

@Suite("Imports of installations")
struct ImportStoreTests {
    func record(_ id: String, owner: String = "alice", channel: String? = nil, tags: [String] = ["topic:sale"]) -> InstallationRecord {
        InstallationRecord(
            id: id, owner: owner, platform: .fcm, pushChannel: channel ?? "\(id)-token", tags: tags, createdAt: .now, updatedAt: .now)
    }

    @Test(arguments: Engine.allCases)
    func newInstallationsAreRegisteredWithTheirTagsAndAddressable(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            let created = try await store.importInstallations((0..<1200).map { record("phone-\($0)") })
            #expect(created == 1200)
            #expect(try await store.installation(id: "phone-1199")?.tags == ["topic:sale"])
            #expect(try await store.audienceSize(try TagExpression(parsing: "topic:sale && platform:fcm")).installations == 1200)
        }
    }

    @Test(arguments: Engine.allCases)
    func anImportMovesAPushChannelAndUpdatesAnExistingInstallationAsSingleRegistrationsWould(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.upsertInstallation(record("old", channel: "shared-token"))
            try await store.upsertInstallation(record("kept", tags: []))
            let created = try await store.importInstallations([record("new", channel: "shared-token"), record("kept", tags: ["vip"])])
            #expect(created == 1)
            #expect(try await store.installation(id: "old") == nil)
            #expect(try await store.installation(id: "new")?.pushChannel == "shared-token")
            #expect(try await store.installation(id: "kept")?.tags == ["vip"])
        }
    }

    @Test(arguments: Engine.allCases)
    func anImportWithAnotherUsersInstallationStoresNothing(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.upsertInstallation(record("taken", owner: "bob"))
            await #expect(throws: StoreError.installationOwnedByAnother) {
                try await store.importInstallations([record("fresh"), record("taken")])
            }
            #expect(try await store.installation(id: "fresh") == nil)
        }
    }
}

@Suite("Feeds and events")
struct FeedStoreTests {
    @Test(arguments: Engine.allCases) func recipientsAreTheOwnersOfAddressedInstallationsAndNamedUsers(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await store.createUser(username: "dave", passwordHash: "x", role: .member)
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice || username:dave || username:ghost")
            #expect(try await store.isRecipient(notificationId: notification.id, username: "alice"))
            #expect(try await store.isRecipient(notificationId: notification.id, username: "dave"))
            #expect(!(try await store.isRecipient(notificationId: notification.id, username: "ghost")))
        }
    }

    @Test(arguments: Engine.allCases) func aScheduledNotificationEntersTheFeedWhenReleased(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let later = Date.now + 60
            _ = try await store.send("username:alice", deliverAt: later)
            #expect(try await store.feed(username: "alice", since: nil, limit: 10).items.isEmpty)
            #expect(try await store.releaseDueNotifications(now: later + 1).count == 1)
            #expect(try await store.feed(username: "alice", since: nil, limit: 10, now: later + 1).items.count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func syncingSinceACursorReturnsOnlyLaterChanges(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (first, _) = try await store.send("username:alice")
            let cursor = try await store.feed(username: "alice", since: nil, limit: 10).cursor
            let (second, _) = try await store.send("username:alice")
            _ = try await store.updateFeedState(username: "alice", notificationId: first.id, readState: .read, userActionState: nil)
            let page = try await store.feed(username: "alice", since: cursor, limit: 10)
            #expect(page.items.map(\.id) == [second.id, first.id])
            #expect(page.items.last?.readState == .read)
            #expect(try await store.feed(username: "alice", since: page.cursor, limit: 10).items.isEmpty)
        }
    }

    @Test(arguments: Engine.allCases) func aStateChangeAppendsOneEventForTheUsersDevicesAndNoneWhenNothingChanged(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice")
            let changed = try await store.updateFeedState(
                username: "alice", notificationId: notification.id, readState: .read, userActionState: .dismissed)
            #expect(changed?.eventCursor != nil)
            let unchanged = try await store.updateFeedState(
                username: "alice", notificationId: notification.id, readState: .read, userActionState: nil)
            #expect(unchanged?.eventCursor == nil)
            let events = try await store.events(username: "alice", installationId: "a1", after: 0, limit: 10)
            #expect(events.map(\.body) == [.state(richId: notification.id, readState: .read, userActionState: .dismissed)])
        }
    }

    @Test(arguments: Engine.allCases) func richEventsAreAppendedOncePerDeliveryEvenWhenPublishedTwice(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            _ = try await store.send("username:alice")
            let jobs = try await store.claimDueDeliveries(limit: 10, lease: 60)
            #expect(try await store.appendRichEvents(for: jobs) == ["alice"])
            #expect(try await store.appendRichEvents(for: jobs).isEmpty)
            #expect(try await store.events(username: "alice", installationId: "a1", after: 0, limit: 10).count == 1)
        }
    }

    @Test(arguments: Engine.allCases) func recallingASentNotificationSignalsItsRecipientsAndEmptiesTheFeed(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice")
            let jobs = try await store.claimDueDeliveries(limit: 10, lease: 60)
            try await store.recordOutcomes(jobs.map { ($0, .sent) })
            let removal = try await store.removeNotification(id: notification.id)
            #expect(removal?.outcome == .deleted)
            #expect(removal?.notifiedUsers == ["alice"])
            #expect(try await store.feed(username: "alice", since: nil, limit: 10).items.isEmpty)
            #expect(
                try await store.events(username: "alice", installationId: nil, after: 0, limit: 10).last?.body == .deleted(richId: notification.id))
            #expect(try await store.removeNotification(id: notification.id)?.outcome == .alreadyRemoved)
        }
    }

    @Test(arguments: Engine.allCases) func cancelingBeforeAnySendStopsEveryDelivery(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice", deliverAt: .now + 60)
            #expect(try await store.removeNotification(id: notification.id)?.outcome == .canceled)
            #expect(try await store.claimDueDeliveries(now: .now + 120, limit: 10, lease: 60).isEmpty)
            #expect(try await store.counts(notificationId: notification.id).tally == DeliveryTally(canceled: 1))
        }
    }

    @Test(arguments: Engine.allCases) func theFirstFetchOfARecipientIsCountedOnce(_ engine: Engine) async throws {
        try await withStore(engine) { store in
            try await store.register("a1", owner: "alice")
            let (notification, _) = try await store.send("username:alice")
            let fetch = PayloadFetch(notificationId: notification.id, username: "alice")
            try await store.recordFetches([fetch, fetch])
            try await store.recordFetches([fetch])
            #expect(try await store.counts(notificationId: notification.id).fetched == 1)
        }
    }
}
