import Foundation
import RichPushCore
import Testing

@Suite("Composing each claimed delivery's push")
struct PushComposerTests {
    func delivery(_ id: Int64, owner: String, language: String? = nil, variant: String? = nil) -> ClaimedDelivery {
        ClaimedDelivery(
            deliveryId: id, attempt: 1, notificationId: 7, installationId: "i\(id)", owner: owner, platform: .apns, pushChannel: "c\(id)",
            language: language, variant: variant)
    }

    func notification(content: PushContent = PushContent(), variants: [Variant] = []) -> ClaimedNotification {
        ClaimedNotification(
            message: "Hello", richType: .text, pushStyle: .alert, audience: "topic:sale", expiresAt: nil, content: content,
            purpose: .marketing, variants: variants)
    }

    @Test func eachDeviceGetsItsLanguagesVariantAndTheTagOfTheLocalizationItCarries() {
        let content = PushContent(localizations: ["fr": Localization(message: "Bonjour")])
        let batch = ClaimedBatch(
            deliveries: [delivery(1, owner: "alice", language: "fr-CA"), delivery(2, owner: "bob", language: "en")],
            notifications: [7: notification(content: content)])
        let jobs = PushComposer.jobs(of: batch)
        #expect(jobs.map(\.push.richMessage) == ["Bonjour", "Hello"])
        #expect(jobs.map(\.language) == ["fr", nil])
        #expect(jobs.allSatisfy { $0.variesByDevice })
    }

    @Test func anUnreadBadgeShowsEachOwnersOwnCount() {
        let batch = ClaimedBatch(
            deliveries: [delivery(1, owner: "alice"), delivery(2, owner: "bob"), delivery(3, owner: "carol")],
            notifications: [7: notification(content: PushContent(badge: .unread))], unreadCounts: ["alice": 3, "bob": 1])
        #expect(batch.ownersShowingUnreadCount == ["alice", "bob", "carol"])
        #expect(PushComposer.jobs(of: batch).map(\.push.badge) == [3, 1, 0])
    }

    @Test func eachUserGetsTheMessageOfTheVariantTheyWereAssigned() {
        let variants = [
            Variant(name: "a", weight: 50, message: "Twenty percent off", content: PushContent()),
            Variant(name: "b", weight: 50, message: "Free shipping", content: PushContent()),
        ]
        let batch = ClaimedBatch(
            deliveries: [delivery(1, owner: "alice", variant: "b"), delivery(2, owner: "bob", variant: "a")],
            notifications: [7: notification(variants: variants)])
        #expect(PushComposer.jobs(of: batch).map(\.push.richMessage) == ["Free shipping", "Twenty percent off"])
    }

    @Test func aDeliveryWhoseNotificationTheClaimDidNotReadGetsNoJob() {
        let batch = ClaimedBatch(deliveries: [delivery(1, owner: "alice")], notifications: [:])
        #expect(PushComposer.jobs(of: batch).isEmpty)
    }
}
