import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import Testing

/// A notification to more devices than its first outbox chunk: the POST answers once that chunk is written, and the
/// rest of the outbox is written after, while the first pushes go out.
@Suite("Large audiences")
struct LargeAudienceTests {
    static let devices = 2_500

    @Test func everyDeviceOfAnAudienceLargerThanTheFirstChunkIsSentTheNotification() async throws {
        try await TestGateway().run { session in
            try await session.createUser("alice")
            let entries = (0..<Self.devices).map {
                #"{"installationId":"desk-\#($0)","owner":"alice","platform":"direct","pushChannel":"desk-\#($0)","tags":["topic:sale"]}"#
            }
            let imported = try await session.request(
                .post, "/api/installations/import", as: .admin, json: #"{"installations":[\#(entries.joined(separator: ","))]}"#)
            #expect(imported.status == .ok)
            let created = try await session.request(
                .post, "/api/notifications", as: .admin, json: #"{"message":"Sale","richType":"text","text":"20% off","audience":"topic:sale"}"#)
            #expect(created.status == .created)
            let id = try #require(try created.json()["id"] as? Int64)
            let status = try await session.waitForState("delivered", of: id)
            #expect(status["targeted"] as? Int == Self.devices)
            #expect(status["sent"] as? Int == Self.devices)
        }
    }
}
