import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import RichPushServer
import TestSupport
import Testing

@Suite("The direct stream")
struct StreamTests {
    @Test func aNotificationArrivesAsARichEventOnTheDevicesStream() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let stream = StreamClient(port: session.client.port!, user: alice, query: "?installationId=laptop")
            try await stream.waitUntilOpen()
            let response = try await session.request(.post, "/api/notifications", as: alice)
            let id = try #require(try response.json()["id"] as? Int64)
            let event = try #require(await stream.next())
            #expect(event.event == "rich")
            #expect(StreamEvent(event)?.body == .rich(richId: id, richType: .img, richMessage: "Check this image out!"))
            #expect(event.data.contains(#""richId":"\#(id)""#))
            stream.close()
        }
    }

    @Test func aDismissalOnOneDeviceReachesTheUsersOtherDevices() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            try await session.register("desktop", of: alice)
            let desktop = StreamClient(port: session.client.port!, user: alice, query: "?installationId=desktop")
            try await desktop.waitUntilOpen()
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(await desktop.next()?.event == "rich")
            let patch = try await session.request(
                .patch, "/api/me/notifications/\(id)", as: alice, json: #"{"readState":"read","userActionState":"dismissed"}"#)
            #expect(patch.status == .ok)
            let state = try #require(await desktop.next())
            #expect(StreamEvent(state)?.body == .state(richId: id, readState: .read, userActionState: .dismissed))
            desktop.close()
        }
    }

    @Test func aNotificationRemovedOnOneDeviceLeavesTheFeedAndReachesTheOthersButItsPayloadStays() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            try await session.register("desktop", of: alice)
            let desktop = StreamClient(port: session.client.port!, user: alice, query: "?installationId=desktop")
            try await desktop.waitUntilOpen()
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(await desktop.next()?.event == "rich")
            #expect(try await session.request(.delete, "/api/me/notifications/\(id)", as: alice).status == .noContent)
            let deleted = try #require(await desktop.next())
            #expect(StreamEvent(deleted)?.body == .deleted(richId: id))
            let feed = try await session.request(.get, "/api/me/notifications", as: alice).json()
            #expect((feed["items"] as? [Any])?.isEmpty == true)
            #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok)
            #expect(try await session.request(.delete, "/api/me/notifications/\(id)", as: alice).status == .notFound)
            desktop.close()
        }
    }

    @Test func aReconnectWithLastEventIdReplaysWhatWasMissed() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let first = StreamClient(port: session.client.port!, user: alice, query: "?installationId=laptop")
            try await first.waitUntilOpen()
            let one = try await session.send(#"{"message":"one","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            let seen = try #require(await first.next())
            first.close()
            let two = try await session.send(#"{"message":"two","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: two)
            let again = StreamClient(port: session.client.port!, user: alice, query: "?installationId=laptop", lastEventId: seen.id)
            let replayed = try #require(await again.next())
            #expect(StreamEvent(replayed)?.body == .rich(richId: two, richType: .text, richMessage: "two"))
            #expect(Int64(replayed.id ?? "") ?? 0 > Int64(seen.id ?? "") ?? 0)
            #expect(one != two)
            again.close()
        }
    }

    @Test func sinceReplaysLikeLastEventId() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            let stream = StreamClient(port: session.client.port!, user: alice, query: "?installationId=laptop&since=0")
            #expect(StreamEvent(try #require(await stream.next()))?.body == .rich(richId: id, richType: .text, richMessage: "m"))
            stream.close()
        }
    }

    @Test func anIdleStreamCarriesAHeartbeatEachInterval() async throws {
        let clock = ManualClock()
        try await TestGateway({
            $0.heartbeatClock = clock
            $0.heartbeatInterval = .seconds(1)
        }).run(.live) { session in
            let alice = try await session.createUser("alice")
            let stream = StreamClient(port: session.client.port!, user: alice)
            try await stream.waitUntilOpen()
            for beat in 1...3 {
                // The stream waits out the interval on the clock, which moves only now.
                try #require(await eventually { clock.sleeperCount == 1 })
                clock.advance(by: .seconds(1))
                #expect(await eventually { stream.heartbeatCount == beat })
            }
            #expect(!stream.hasEnded)
            stream.close()
        }
    }

    @Test func eventsForAnotherDeviceStayOffThisDevicesStream() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice, tags: ["topic:sale"])
            try await session.register("desktop", of: alice)
            let desktop = StreamClient(port: session.client.port!, user: alice, query: "?installationId=desktop")
            try await desktop.waitUntilOpen()
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"topic:sale"}"#, as: .admin)
            _ = try await session.waitForState("delivered", of: id)
            // A notice to the desktop itself, sent after: the laptop's event would have come before it.
            let notice = try await session.send(
                #"{"message":"m","richType":"text","text":"x","audience":"installation:desktop"}"#, as: .admin)
            let next = await desktop.next().flatMap(StreamEvent.init)
            guard case .rich(let richId, _, _, _, _, _, _)? = next?.body else {
                Issue.record("the desktop's next event is not its notice: \(String(describing: next))")
                return
            }
            #expect(richId == notice)
            desktop.close()
        }
    }

    @Test func streamingAnotherUsersOrANonDirectInstallationIsRefused() async throws {
        try await TestGateway().run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            try await session.register("bob-laptop", of: bob)
            try await session.register("alice-phone", of: alice, platform: .apns)
            let foreign = try await session.request(.get, "/api/me/stream?installationId=bob-laptop", as: alice)
            #expect(foreign.status == .notFound)
            let apns = try await session.request(.get, "/api/me/stream?installationId=alice-phone", as: alice)
            #expect(apns.status == .unprocessableContent)
            let badCursor = try await session.request(.get, "/api/me/stream", as: alice, headers: [HTTPField.Name("Last-Event-ID")!: "yesterday"])
            #expect(badCursor.status == .badRequest)
        }
    }

    @Test func aRecallReachesTheStreamAsADeletedEvent() async throws {
        try await TestGateway().run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let stream = StreamClient(port: session.client.port!, user: alice, query: "?installationId=laptop")
            try await stream.waitUntilOpen()
            let id = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(await stream.next()?.event == "rich")
            #expect(try await session.request(.delete, "/api/notifications/\(id)", as: .admin).status == .noContent)
            let deleted = try #require(await stream.next())
            #expect(StreamEvent(deleted)?.body == .deleted(richId: id))
            stream.close()
        }
    }
}
