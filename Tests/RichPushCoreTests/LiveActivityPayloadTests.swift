import Foundation
import RichPushCore
import Testing

@Suite("Live Activity pushes")
struct LiveActivityPayloadTests {
    static let created = Date(timeIntervalSince1970: 1_800_000_000)

    func activity(version: Int64, updatedAt: Date) -> ActivityRecord {
        ActivityRecord(
            id: 7, audience: "username:alice", attributesType: "T", attributes: #"{"order":"A-17"}"#, contentState: #"{"eta":600}"#,
            createdBy: "mark", createdAt: Self.created, updatedAt: updatedAt, version: version, dismissalDate: Self.created + 3600)
    }

    @Test func eachVersionIsStampedLaterThanTheOneBeforeEvenWithinOneSecond() {
        let first = activity(version: 1, updatedAt: Self.created)
        let second = activity(version: 2, updatedAt: Self.created + 0.2)
        let third = activity(version: 3, updatedAt: Self.created + 0.4)
        #expect([first, second, third].map(\.timestamp) == [1_800_000_000, 1_800_000_001, 1_800_000_002])
        #expect(activity(version: 2, updatedAt: Self.created + 60).timestamp == 1_800_000_060)
    }

    @Test func anEndCarriesItsDismissalDateAndNoAttributes() {
        let body = String(decoding: activity(version: 2, updatedAt: Self.created + 5).apnsPayload(for: .end), as: UTF8.self)
        #expect(body == #"{"aps":{"content-state":{"eta":600},"dismissal-date":1800003600,"event":"end","timestamp":1800000005}}"#)
    }

    @Test func aStartRaisesItsOwnAlertWhenTheLatestUpdateRaisedNoneAndAnUpdateNeverRaisesTheStarts() throws {
        var updated = activity(version: 2, updatedAt: Self.created + 5)
        updated.startAlert = ActivityAlert(title: "Order A-17", body: "Packed")
        let start = try JSONSerialization.jsonObject(with: updated.apnsPayload(for: .start)) as? [String: [String: Any]]
        #expect(start?["aps"]?["alert"] as? [String: String] == ["title": "Order A-17", "body": "Packed"])
        let update = try JSONSerialization.jsonObject(with: updated.apnsPayload(for: .update)) as? [String: [String: Any]]
        #expect(update?["aps"]?["alert"] == nil)
        updated.alert = ActivityAlert(body: "Shipped")
        let newer = try JSONSerialization.jsonObject(with: updated.apnsPayload(for: .start)) as? [String: [String: Any]]
        #expect(newer?["aps"]?["alert"] as? [String: String] == ["body": "Shipped"], "a start raises the newest alert")
    }
}
