import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import RichPushServer
import TestPostgres
import TestSupport
import Testing

/// What clients hear while the gateway's database fails: a PostgreSQL server that stops and returns, an SQLite file
/// whose disk is full. Never a 500, never a request held for the length of the outage.
@Suite("Answers while the store fails", .serialized)
struct StoreFailureTests {
    @Test func readinessAnswers503WhileThePostgreSQLServerIsStoppedAnd200WithinFiveSecondsOfItsReturn() async throws {
        try await withGatewayOnPrivatePostgres { server, session in
            #expect(try await session.request(.get, "/health/ready").status == .ok)
            try await server.stop()
            let ready = try await session.request(.get, "/health/ready")
            #expect(ready.status == .serviceUnavailable)
            #expect(try ready.error().code == "store.unavailable")
            #expect(try await session.request(.get, "/health").status == .ok, "liveness does not depend on the store")
            try await server.startAgain()
            let back = ContinuousClock.now
            let recovered = try await eventually(within: .seconds(5)) { try await session.request(.get, "/health/ready").status == .ok }
            #expect(recovered, "readiness did not answer 200 within 5 s of the server's return")
            #expect(ContinuousClock.now - back < .seconds(5))
        }
    }

    @Test func aRequestThatNeedsTheStoreAnswers503StoreUnavailableWithRetryAfterWithinTheDeadline() async throws {
        try await withGatewayOnPrivatePostgres { server, session in
            let alice = try await session.createUser("alice")
            try await server.stop()
            let asked = ContinuousClock.now
            let created = try await session.request(
                .post, "/api/notifications", as: .admin, json: #"{"message":"Sale","richType":"text","text":"x","audience":"username:alice"}"#)
            #expect(created.status == .serviceUnavailable)
            #expect(try created.error().code == "store.unavailable")
            #expect(created.headers[.retryAfter] == "2")
            #expect(ContinuousClock.now - asked < .seconds(5))
            let feed = try await session.request(.get, "/api/me/notifications", as: alice)
            #expect(feed.status == .serviceUnavailable)
        }
    }

    @Test func whatWasCreatedBeforeTheOutageIsThereAfterIt() async throws {
        try await withGatewayOnPrivatePostgres { server, session in
            let alice = try await session.createUser("alice")
            let id = try await session.send(#"{"message":"Before","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            try await server.stop()
            #expect(try await session.request(.get, "/api/notifications/\(id)/status", as: .admin).status == .serviceUnavailable)
            try await server.startAgain()
            _ = try await eventually(within: .seconds(5)) { try await session.request(.get, "/health/ready").status == .ok }
            let payload = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(payload.status == .ok)
            #expect(payload.text == "x")
        }
    }

    @Test func anUploadOntoAFullDiskAnswers507AndStoresNothing() async throws {
        try await withGatewayOnFullDisk { disk, session in
            let response = try await session.request(
                .post, "/api/images", as: .admin, body: ByteBuffer(data: try await noisePNG()), headers: [.contentType: "image/png"])
            #expect(response.status.code == 507)
            #expect(try response.error().code == "store.full")
        }
    }

    @Test func aPayloadStoredBeforeTheDiskFilledIsStillServed() async throws {
        try await withGatewayOnFullDisk(before: { session in
            let alice = try await session.createUser("alice")
            let image = try await session.upload(as: .admin)
            let id = try await session.send(#"{"message":"Look","richType":"img","imageId":\#(image),"audience":"username:alice"}"#, as: .admin)
            return (alice, id)
        }) { disk, session, sent in
            let payload = try await session.request(.get, "/api/notifications/\(sent.1)", as: sent.0)
            #expect(payload.status == .ok)
            #expect(payload.headers[.contentType] == "image/png")
        }
    }

    @Test func theNextUploadAfterSpaceIsFreedSucceedsWithoutARestart() async throws {
        try await withGatewayOnFullDisk { disk, session in
            let refused = try await session.request(
                .post, "/api/images", as: .admin, body: ByteBuffer(data: try await noisePNG()), headers: [.contentType: "image/png"])
            #expect(refused.status.code == 507)
            try disk.freeSpace()
            let stored = try await session.request(
                .post, "/api/images", as: .admin, body: ByteBuffer(data: try await noisePNG()), headers: [.contentType: "image/png"])
            #expect(stored.status == .created)
        }
    }

    /// A gateway in the test process on a PostgreSQL server of the test's own, which the test may stop and start.
    private func withGatewayOnPrivatePostgres(_ body: @escaping @Sendable (PrivatePostgresServer, Session) async throws -> Void) async throws {
        let server = try await PrivatePostgresServer.start()
        do {
            try await TestGateway { $0.databaseURL = server.url }.run { session in try await body(server, session) }
            await server.remove()
        } catch {
            await server.remove()
            throw error
        }
    }

    /// A gateway on SQLite on a disk that `before` writes to, then fills but for 1 MiB.
    private func withGatewayOnFullDisk<Setup: Sendable>(
        before: @escaping @Sendable (Session) async throws -> Setup,
        _ body: @escaping @Sendable (FillableDisk, Session, Setup) async throws -> Void
    ) async throws {
        try await FillableDisk.with(size: 16 * 1024 * 1024) { disk in
            try await TestGateway { $0.dataDirectory = disk.mountPoint.appendingPathComponent("data").path }.run { session in
                let setup = try await before(session)
                try disk.fill(leaving: 1024 * 1024)
                try await body(disk, session, setup)
            }
        }
    }

    private func withGatewayOnFullDisk(_ body: @escaping @Sendable (FillableDisk, Session) async throws -> Void) async throws {
        try await withGatewayOnFullDisk(before: { _ in () }) { disk, session, _ in try await body(disk, session) }
    }
}
