import Foundation
import NIOCore
import RichPushCore
import Synchronization

/// Reads the events of open streams from the store, once for all the streams that want the same ones.
///
/// A notice to a user with many open streams (a desk of ten thousand kiosks, say) wakes them all at once, and each
/// wants the events after the same cursor: one query answers them all, and its answer is framed for the wire once and
/// shared. A read may serve a stream only if it began after the notice that woke the stream (see
/// ``EventBroadcaster/generation(of:)``), so no stream misses an event a later read would have found.
final class StreamEventReader: Sendable {
    /// Events framed for the wire, and the cursor after the last of them.
    struct Page: Sendable {
        var bytes: ByteBuffer
        var count: Int
        var lastCursor: Int64
    }

    private struct Key: Hashable {
        var username: String
        var installationId: String?
        var after: Int64
    }

    private struct SharedRead {
        var generation: UInt64
        var started: ContinuousClock.Instant
        var page: Task<Page, any Error>
    }

    /// The events of a user (for an installation, if given) after a cursor, at most a page of them.
    typealias Read = @Sendable (_ username: String, _ installationId: String?, _ after: Int64, _ limit: Int) async throws -> [StreamEvent]

    private let read: Read
    private let pageSize: Int
    private struct Reads {
        var byKey: [Key: SharedRead] = [:]
        /// The count past which finished reads are dropped; it doubles with what stays, so dropping costs little per
        /// read however many users' streams read at once.
        var purgeAt = 64
    }

    private let reads = Mutex(Reads())
    /// How long a finished read is kept for streams that wake late.
    private let keep: Duration

    init(pageSize: Int, keep: Duration = .seconds(2), read: @escaping Read) {
        self.pageSize = pageSize
        self.keep = keep
        self.read = read
    }

    /// The events of `username` (for `installationId`, if given) after `cursor`, from a read that began at
    /// `generation` or later.
    func page(username: String, installationId: String?, after cursor: Int64, generation: UInt64) async throws -> Page {
        let key = Key(username: username, installationId: installationId, after: cursor)
        let now = ContinuousClock.now
        let shared = reads.withLock { reads -> Task<Page, any Error> in
            if let read = reads.byKey[key], read.generation >= generation { return read.page }
            if reads.byKey.count > reads.purgeAt {
                reads.byKey = reads.byKey.filter { now - $0.value.started < keep }
                reads.purgeAt = max(64, reads.byKey.count * 2)
            }
            let page = Task { [read, pageSize] in
                let events = try await read(username, installationId, cursor, pageSize)
                return Page(
                    bytes: ByteBuffer(string: events.map(\.serverSentEvent).joined()), count: events.count,
                    lastCursor: events.last?.cursor ?? cursor)
            }
            reads.byKey[key] = SharedRead(generation: generation, started: now, page: page)
            return page
        }
        do {
            return try await shared.value
        } catch {
            reads.withLock { reads in if reads.byKey[key]?.generation == generation { reads.byKey[key] = nil } }
            throw error
        }
    }
}
