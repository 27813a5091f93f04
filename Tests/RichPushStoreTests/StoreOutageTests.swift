import Foundation
import Logging
import RichPushCore
import RichPushStore
import TestPostgres
import TestSupport
import Testing

/// The database going away under a running store, and coming back: a PostgreSQL server stopped as an operator stops
/// it, and an SQLite file on a disk that fills up.
@Suite("The store when its database fails", .serialized)
struct StoreOutageTests {
    @Test func everyOperationIsUnavailableWithinSecondsOfTheServerStopping() async throws {
        try await withPrivateServer { server, store in
            try await store.register("laptop", owner: "alice")
            try await server.stop()
            let asked = ContinuousClock.now
            await #expect(throws: StoreError.unavailable) { try await store.ping() }
            await #expect(throws: StoreError.unavailable) { _ = try await store.installations.list(owner: "alice", limit: 10) }
            #expect(ContinuousClock.now - asked < .seconds(5), "the first operations after the stop waited past the request deadline")
        }
    }

    /// The first operations after the stop may wait for the probes' verdict (two failed connections, half a second
    /// apart, longer on a loaded machine), which the log tells; every one after it is refused at once.
    @Test func onceTheStoreHasFoundTheServerGoneEveryOperationFailsWithoutWaitingForIt() async throws {
        let log = CapturedLog()
        try await withPrivateServer(logger: log.logger()) { server, store in
            try await server.stop()
            await #expect(throws: StoreError.unavailable) { try await store.ping() }
            let found = await eventually { log.lines.contains { $0.contains("the PostgreSQL server does not answer") } }
            #expect(found, "no verdict on the server 10 s after it stopped: \(log.lines)")
            for owner in ["alice", "bob", "carol"] {
                #expect(await Self.refusedAtOnce { try await store.register("phone", owner: owner) })
            }
        }
    }

    /// Whether `operation` fails as unavailable well within a second.
    private static func refusedAtOnce(_ operation: () async throws -> Void) async -> Bool {
        let asked = ContinuousClock.now
        do {
            try await operation()
            return false
        } catch {
            return error as? StoreError == .unavailable && ContinuousClock.now - asked < .milliseconds(500)
        }
    }

    @Test func theStoreAnswersWithinFiveSecondsOfTheServersReturnWithWhatWasWrittenBefore() async throws {
        try await withPrivateServer { server, store in
            try await store.register("laptop", owner: "alice")
            try await server.stop()
            await #expect(throws: StoreError.unavailable) { try await store.ping() }
            try await server.startAgain()
            let back = ContinuousClock.now
            let answered = await eventually(within: .seconds(5)) { (try? await store.ping()) != nil }
            #expect(answered, "the store did not answer within 5 s of the server's return")
            #expect(ContinuousClock.now - back < .seconds(5))
            #expect(try await store.installations.list(owner: "alice", limit: 10).map(\.id) == ["laptop"])
            try await store.register("phone", owner: "alice")
            #expect(try await store.installations.list(owner: "alice", limit: 10).map(\.id).sorted() == ["laptop", "phone"])
        }
    }

    @Test func aFullDiskRefusesTheWriteWholeAndTheNextSucceedsOnceSpaceIsFreed() async throws {
        try await withFullDisk { store, freeSpace in
            let kept = try await store.images.insert(data: Self.bytes(1_000, seed: 1), sha256: "kept", width: 1, height: 1)
            await #expect(throws: StoreError.full) {
                _ = try await store.images.insert(data: Self.bytes(3_000_000, seed: 2), sha256: "large", width: 1, height: 1)
            }
            #expect(try await store.images.image(sha256: "large") == nil, "a refused write left part of itself behind")
            #expect(try await store.images.data(id: kept.id) == Self.bytes(1_000, seed: 1))
            try freeSpace()
            let stored = try await store.images.insert(data: Self.bytes(3_000_000, seed: 2), sha256: "large", width: 1, height: 1)
            #expect(try await store.images.data(id: stored.id)?.count == 3_000_000)
        }
    }

    private static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed })
    }

    /// A store on a PostgreSQL server of the test's own, which the test may stop and start.
    private func withPrivateServer(
        logger: Logger = Logger(label: "test"), _ body: (PrivatePostgresServer, Store) async throws -> Void
    ) async throws {
        let server = try await PrivatePostgresServer.start()
        do {
            let store = try await Store.openPostgres(url: server.url, logger: logger)
            do {
                try await body(server, store)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
            await server.remove()
        } catch {
            await server.remove()
            throw error
        }
    }

    /// A store on a disk that is full but for 2 MiB: room for the store's small writes, none for a 3 MB image.
    private func withFullDisk(_ body: (Store, () throws -> Void) async throws -> Void) async throws {
        try await FillableDisk.with { disk in
            let store = try await Store.openSQLite(directory: disk.mountPoint.appendingPathComponent("data").path, logger: Logger(label: "test"))
            try disk.fill(leaving: 2 * 1024 * 1024)
            do {
                try await body(store, disk.freeSpace)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }
}

extension ImageRepository {
    fileprivate func insert(data: Data, sha256: String, width: Int, height: Int) async throws -> ImageRecord {
        try await insert(data: data, sha256: sha256, contentType: "image/png", width: width, height: height, createdBy: "mark", now: .now).image
    }
}
