import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import NIOHTTPTypesHTTP1
import RichPushCore
import RichPushStore
import Synchronization

/// The payload path's memory: images (immutable), notifications (briefly, since they can be recalled), recipient
/// checks and first fetches, so a repeated fetch of a payload reads no database row.
final class PayloadMemory: Sendable {
    /// An image in memory, shared by reference: a fetch answered from memory copies none of its fields.
    final class Image: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        let entityTag: String
        /// The same bytes in a file, for fetches over plain HTTP; nil when it could not be written.
        let file: ImageFile?
        /// The headers of an answer with the whole image, made once: every fetch but a conditional or ranged one
        /// sends them as they are.
        let wholeAnswerFields: HTTPFields
        /// The same headers in NIOHTTP1's form, for the fetches that hand their answer to its encoder.
        let wholeAnswerHTTP1Headers: HTTPHeaders
        /// The whole answer to a `GET` as plain connections send it during one second, in a file of its own, once the
        /// image is fetched often enough in the second.
        private let datedAnswer = Mutex(DatedAnswer(second: .min, asks: 0, file: nil))

        init(bytes: ByteBuffer, contentType: String, entityTag: String, file: ImageFile?) {
            self.bytes = bytes
            self.contentType = contentType
            self.entityTag = entityTag
            self.file = file
            wholeAnswerFields = PayloadReply.imageFields(entityTag: entityTag, contentType: contentType, size: bytes.readableBytes)
            wholeAnswerHTTP1Headers = HTTPHeaders(wholeAnswerFields)
        }

        /// A file with `head` and the image after it, the whole answer to a `GET` dated `second`: a plain connection
        /// hands the socket this one file (one `sendfile`) and no head of its own, nor holds back segments to send
        /// them together. Made by the ``answerFileAsks``th ask of the second: writing the file costs about what a few
        /// fetches save, so an image fetched less often goes without. The head and the image's own file go apart
        /// until then, for a second already past, and when no file could be written.
        func answerFile(at second: Int, head: ByteBuffer) -> AnswerFileAsk {
            datedAnswer.withLock { current in
                if current.second > second { return .never }
                if current.second < second { current = DatedAnswer(second: second, asks: 0, file: nil) }
                if let file = current.file { return .file(file) }
                current.asks += 1
                if current.asks < Self.answerFileAsks { return .later }
                if current.asks > Self.answerFileAsks { return .never }
                var answer = head
                answer.writeImmutableBuffer(bytes)
                // A file that could not be written is not tried again within the second.
                current.file = ImageFile(answer)
                return current.file.map { .file($0) } ?? .never
            }
        }

        static let answerFileAsks = 3

        /// What an ask for the whole answer's file gets: the file, none yet (ask again at the next fetch), or none
        /// this second.
        enum AnswerFileAsk {
            case file(ImageFile)
            case later
            case never
        }

        private struct DatedAnswer {
            var second: Int
            var asks: Int
            var file: ImageFile?
        }
    }

    /// A notification in memory, shared by reference: a fetch answered from memory copies none of its fields.
    final class CachedNotification: Sendable {
        let record: NotificationRecord

        init(_ record: NotificationRecord) {
            self.record = record
        }
    }

    struct Recipient: Hashable, Sendable {
        let notificationId: Int64
        let username: String
    }

    /// A fetch without its time: a repeat of one already recorded records nothing.
    struct FetchKey: Hashable, Sendable {
        let notificationId: Int64
        let username: String?
        let installationId: String?
    }

    let notificationRepository: any NotificationRepository
    let imageRepository: any ImageRepository
    let fetches: FetchRecorder
    /// Counts the payloads' bytes sent, under `--payload-egress-limit`; nil without one.
    let egress: PayloadEgress?
    private let images = BoundedCache<Int64, Image>(maximumCost: 64 * 1024 * 1024)
    /// A recall on another process shows here within this time to live.
    private let notifications: BoundedCache<Int64, CachedNotification>
    /// Recipients are fixed when a notification is created, so an answer never changes.
    private let recipients = BoundedCache<Recipient, Bool>(maximumCost: 100_000)
    private let fetchesRecorded = BoundedCache<FetchKey, Bool>(maximumCost: 100_000)

    /// `notificationTimeToLive`: how long a notification read from the store is served from memory.
    init(
        notifications: any NotificationRepository, images: any ImageRepository, fetches: FetchRecorder, egress: PayloadEgress? = nil,
        notificationTimeToLive: TimeInterval = 1
    ) {
        self.egress = egress
        self.notificationRepository = notifications
        self.imageRepository = images
        self.fetches = fetches
        self.notifications = BoundedCache(timeToLive: notificationTimeToLive, maximumCost: 10_000)
    }

    func notification(id: Int64) async throws -> NotificationRecord? {
        if let cached = notifications[id] { return cached.record }
        guard let record = try await notificationRepository.notification(id: id) else { return nil }
        notifications.set(id, CachedNotification(record))
        return record
    }

    func image(id: Int64) async throws -> Image? {
        if let cached = images[id] { return cached }
        guard let metadata = try await imageRepository.image(id: id), let data = try await imageRepository.data(id: id) else { return nil }
        let bytes = ByteBuffer(data: data)
        let image = Image(bytes: bytes, contentType: metadata.contentType, entityTag: "\"\(metadata.sha256)\"", file: ImageFile(bytes))
        images.set(id, image, cost: data.count)
        return image
    }

    func isRecipient(notificationId: Int64, username: String) async throws -> Bool {
        let key = Recipient(notificationId: notificationId, username: username)
        if let cached = recipients[key] { return cached }
        let answer = try await notificationRepository.isRecipient(notificationId: notificationId, username: username)
        recipients.set(key, answer)
        return answer
    }

    /// Records a first fetch (in the recorder's next batch); later fetches cost a cache lookup.
    func recordFetch(_ fetch: PayloadFetch) {
        let key = FetchKey(notificationId: fetch.notificationId, username: fetch.username, installationId: fetch.installationId)
        guard !isFetchRecorded(key) else { return }
        fetchesRecorded.set(key, true)
        fetches.record(fetch)
    }

    /// The notification, when memory holds it.
    func cachedNotification(id: Int64) -> CachedNotification? {
        notifications[id]
    }

    /// The image, when memory holds it.
    func cachedImage(id: Int64) -> Image? {
        images[id]
    }

    /// Whether `username` receives the notification, when memory knows.
    func cachedRecipient(notificationId: Int64, username: String) -> Bool? {
        recipients[Recipient(notificationId: notificationId, username: username)]
    }

    /// Whether the first such fetch is recorded already.
    func isFetchRecorded(_ key: FetchKey) -> Bool {
        fetchesRecorded[key] != nil
    }

    /// Drops a notification this process just changed.
    func forget(notificationId: Int64) {
        notifications.remove(notificationId)
    }
}

extension PayloadMemory {
    /// Whether `caller` may read a notification and its payload.
    func mayRead(_ record: NotificationRecord, caller: AuthenticatedUser) async throws -> Bool {
        if PayloadAccess.mayRead(record, caller: caller, isRecipient: false) { return true }
        return try await isRecipient(notificationId: record.id, username: caller.username)
    }
}
