import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushServer
import Testing

@Suite("Campaigns at a local time")
struct LocalTimeTests {
    @Test func aCampaignAtALocalTimeStaysScheduledUntilItsFirstZoneAndNamesTheNext() async throws {
        try await TestGateway({ $0.defaultTimeZone = TimeZone(identifier: "Europe/Berlin")! }).run { session in
            let alice = try await session.createUser("alice")
            try await session.request(
                .put, "/api/installations/laptop", as: alice, json: #"{"platform":"direct","pushChannel":"laptop","timeZone":"Asia/Tokyo"}"#)
            try await session.register("desktop", of: alice)
            let id = try await session.send(
                #"{"message":"Good morning","richType":"text","audience":"username:alice","deliverAtLocal":"2099-06-01T09:00:00"}"#, as: .admin)
            let status = try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).json()
            #expect(status["state"] as? String == "scheduled")
            // Tokyo (UTC+9) comes first; the desktop has no zone and takes the default, Berlin in summer (UTC+2).
            #expect(status["nextDueAt"] as? String == "2099-06-01T00:00:00.000Z")
            let info = try await session.request(.get, "/api/notifications/\(id)/info", as: .admin).json()
            #expect(info["deliverAtLocal"] as? String == "2099-06-01T09:00:00")
            #expect(info["deliverAt"] as? String == "2099-06-01T00:00:00.000Z")
        }
    }

    @Test(arguments: [
        #"{"message":"m","richType":"text","deliverAtLocal":"2099-06-01T09:00:00","deliverAt":"2099-06-01T09:00:00Z"}"#,
        #"{"message":"m","richType":"text","deliverAtLocal":"2099-06-01T09:00:00Z"}"#,
        #"{"message":"m","richType":"text","deliverAtLocal":"tomorrow at nine"}"#,
    ])
    func aLocalTimeWithAZoneOrBesideDeliverAtIs422(json: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.post, "/api/notifications", as: .admin, json: json)
            #expect(response.status == .unprocessableContent)
            #expect(try response.error().code == "notification.invalidTime")
        }
    }
}
