import NIOCore
import RichPushCore
import Synchronization
import TestSupport
import Testing

@testable import RichPushServer

@Suite("Waking open streams")
struct StreamWakeTests {
    @Test func aSignalWithNobodyWaitingIsKeptAndEventsComeBeforeTheHeartbeat() async {
        let signal = StreamSignal()
        signal.ringHeartbeat()
        signal.ringEvents()
        #expect(await signal.wait() == .events)
        #expect(await signal.wait() == .heartbeat)
    }

    @Test func closingWakesAWaitingStreamAndEveryLaterWait() async {
        let signal = StreamSignal()
        async let woken = signal.wait()
        #expect(await eventually { signal.hasWaiter })
        signal.close()
        #expect(await woken == .closed)
        signal.ringEvents()
        #expect(await signal.wait() == .closed)
    }

    @Test func aCancelledWaitEndsAsClosed() async {
        let signal = StreamSignal()
        let waiting = Task { await signal.wait() }
        #expect(await eventually { signal.hasWaiter })
        waiting.cancel()
        #expect(await waiting.value == .closed)
    }

    @Test func aNewStreamBeyondTheUsersLimitClosesTheOldest() async {
        let broadcaster = EventBroadcaster(maximumStreamsPerUser: 2)
        let oldest = broadcaster.subscribe("alice").signal
        let middle = broadcaster.subscribe("alice").signal
        _ = broadcaster.subscribe("alice")
        #expect(oldest.isClosed)
        #expect(!middle.isClosed)
    }

    @Test func aNoticeToAUserRaisesItsGenerationAndWakesOnlyItsStreams() async {
        let broadcaster = EventBroadcaster()
        let alice = broadcaster.subscribe("alice").signal
        let bob = broadcaster.subscribe("bob").signal
        let before = broadcaster.generation(of: "alice")
        broadcaster.notify(["alice"])
        #expect(broadcaster.generation(of: "alice") > before)
        #expect(await alice.wait() == .events)
        broadcaster.beat()
        #expect(await bob.wait() == .heartbeat)
    }

    /// A store read that counts how often it ran.
    final class CountedRead: Sendable {
        let count = Atomic(0)

        func read(_ username: String, _ installationId: String?, _ after: Int64, _ limit: Int) async throws -> [StreamEvent] {
            count.add(1, ordering: .relaxed)
            return [StreamEvent(cursor: after + 1, body: .deleted(richId: 7))]
        }
    }

    @Test func streamsWokenByOneNoticeShareOneReadOfTheStore() async throws {
        let store = CountedRead()
        // Kept for an hour: however late a loaded machine runs one of the hundred, it finds the first one's read.
        let reader = StreamEventReader(pageSize: 500, keep: .seconds(3600), read: store.read)
        let pages = try await withThrowingTaskGroup(of: StreamEventReader.Page.self) { group in
            for _ in 0..<100 { group.addTask { try await reader.page(username: "alice", installationId: nil, after: 41, generation: 3) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(pages.count == 100)
        #expect(pages.allSatisfy { $0.lastCursor == 42 && String(buffer: $0.bytes).hasPrefix("id: 42\nevent: deleted\n") })
        #expect(store.count.load(ordering: .relaxed) == 1)
    }

    @Test func aReadThatBeganBeforeANoticeDoesNotServeTheStreamsItWoke() async throws {
        let store = CountedRead()
        let reader = StreamEventReader(pageSize: 500, keep: .seconds(3600), read: store.read)
        _ = try await reader.page(username: "alice", installationId: nil, after: 41, generation: 3)
        _ = try await reader.page(username: "alice", installationId: nil, after: 41, generation: 3)
        #expect(store.count.load(ordering: .relaxed) == 1)
        _ = try await reader.page(username: "alice", installationId: nil, after: 41, generation: 4)
        #expect(store.count.load(ordering: .relaxed) == 2)
        _ = try await reader.page(username: "alice", installationId: "laptop", after: 41, generation: 4)
        #expect(store.count.load(ordering: .relaxed) == 3)
    }
}

extension StreamWakeTests {
    @Test func aNewStreamNeverSharesAReadThatBeganBeforeIt() async {
        let broadcaster = EventBroadcaster()
        let first = broadcaster.subscribe("alice")
        let before = broadcaster.generation(of: "alice")
        broadcaster.unsubscribe("alice", id: first.id)
        // Events stored while alice has no stream here wake nobody; her next stream still reads afresh.
        broadcaster.notify(["alice"])
        _ = broadcaster.subscribe("alice")
        #expect(broadcaster.generation(of: "alice") > before)
    }
}
