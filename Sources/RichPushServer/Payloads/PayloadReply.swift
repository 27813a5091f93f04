import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import RichPushCore
import RichPushStore

/// The answer to a payload fetch, built the same way whether the fast path or the router serves it.
///
/// An image's answer holds the image and the part of it sent, and makes its headers and body when they are asked
/// for: the fast path of a plain connection asks for neither, and every field copied here would be a reference count
/// both event loops change on the same cached image.
struct PayloadReply {
    var status: HTTPResponse.Status
    private let content: Content

    private enum Content {
        /// `sent` of `image`'s bytes, the part `range` asked for (sent unless the request is `HEAD`).
        case image(PayloadMemory.Image, range: ByteRange, sent: Range<Int>, sendsBody: Bool)
        case other(HTTPFields, body: ByteBuffer?)
    }

    /// The answer with `payload` (a notification's, in the reader's language) to a `GET` or `HEAD` with the request's
    /// `conditions`; `image` is the payload's image when it has one. It takes the payload alone, not the notification:
    /// a notification's many fields would be copied for the call.
    init(_ payload: RichPayload, image: PayloadMemory.Image?, method: HTTPRequest.Method, conditions: FetchConditions) {
        var headers: HTTPFields
        let body: ByteBuffer?
        switch payload {
        case .image:
            let image = image!
            if let ifNoneMatch = conditions.ifNoneMatch, Self.matches(ifNoneMatch, image.entityTag) {
                status = .notModified
                headers = [.eTag: image.entityTag, .cacheControl: "private"]
                headers.append(contentsOf: SecurityHeaders.fields)
                content = .other(headers, body: nil)
                return
            }
            let size = image.bytes.readableBytes
            let range = ByteRange(range: conditions.range, ifRange: conditions.ifRange, size: size, entityTag: image.entityTag)
            let sent: Range<Int>
            switch range {
            case .whole:
                status = .ok
                sent = 0..<size
            case .partial(let part):
                status = .partialContent
                sent = part
            case .unsatisfiable:
                status = .rangeNotSatisfiable
                sent = 0..<0
            }
            content = .image(image, range: range, sent: sent, sendsBody: method != .head && !sent.isEmpty)
            return
        case .url(let url):
            status = .found
            headers = [.location: url, .cacheControl: "private"]
            body = nil
        case .text(let text):
            let buffer = ByteBuffer(string: text)
            status = .ok
            headers = [.contentType: "text/plain; charset=utf-8", .cacheControl: "private", .contentLength: String(buffer.readableBytes)]
            body = method == .head ? nil : buffer
        }
        headers.append(contentsOf: SecurityHeaders.fields)
        content = .other(headers, body: body)
    }

    var headers: HTTPFields {
        switch content {
        case .image(let image, let range, _, _):
            var headers = image.wholeAnswerFields
            // The range's own headers over the whole answer's.
            for field in range.headers(size: image.bytes.readableBytes) { headers[field.name] = field.value }
            return headers
        case .other(let headers, _):
            return headers
        }
    }

    var body: ByteBuffer? {
        switch content {
        case .image(let image, _, let sent, let sendsBody): sendsBody ? image.bytes.readableSlice(sent) : nil
        case .other(_, let body): body
        }
    }

    /// The body's part of the image's file, which a plain HTTP/1.1 connection sends without copying it.
    var file: (image: ImageFile, range: Range<Int>)? {
        guard case .image(let image, _, let sent, true) = content, let file = image.file else { return nil }
        return (file, sent)
    }

    /// The image when the answer is the whole of it, `GET` or `HEAD`: its headers were made once, in both forms.
    var wholeImage: PayloadMemory.Image? {
        guard status == .ok, case .image(let image, _, _, _) = content else { return nil }
        return image
    }

    /// The image when the answer sends all of it: a `GET` of the whole image.
    var wholeImageSent: PayloadMemory.Image? {
        guard status == .ok, case .image(let image, _, _, true) = content else { return nil }
        return image
    }

    /// The headers of an answer with the whole of an image of `size` bytes.
    static func imageFields(entityTag: String, contentType: String, size: Int) -> HTTPFields {
        var fields: HTTPFields = [
            .eTag: entityTag, .cacheControl: "private", .acceptRanges: "bytes", .contentType: contentType, .contentLength: String(size),
        ]
        fields.append(contentsOf: SecurityHeaders.fields)
        return fields
    }

    /// The `Server` header the fast paths give, as the framework does its answers (`serverName`).
    static let server = "richpush"

    /// The bytes of its body.
    var bodyBytes: Int {
        switch content {
        case .image(_, _, let sent, let sendsBody): sendsBody ? sent.count : 0
        case .other(_, let body): body?.readableBytes ?? 0
        }
    }

    /// `If-None-Match` uses weak comparison: `*`, or any listed tag equal to ours with or without `W/`.
    static func matches(_ header: String, _ entityTag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == entityTag
        }
    }
}

/// The request headers a payload answer depends on: `If-None-Match`, and `Range` and `If-Range` for an image. Read
/// from either form of headers, so a fast path below the HTTP types codec converts none.
struct FetchConditions {
    var ifNoneMatch: String?
    var range: String?
    var ifRange: String?

    init(ifNoneMatch: String?, range: String?, ifRange: String?) {
        self.ifNoneMatch = ifNoneMatch
        self.range = range
        self.ifRange = ifRange
    }

    init(_ fields: HTTPFields) {
        ifNoneMatch = fields[.ifNoneMatch]
        range = fields[.range]
        ifRange = fields[.ifRange]
    }

    init(_ headers: HTTPHeaders) {
        // Several `If-None-Match` lines are one list, as HTTP types joins them.
        let tags = headers["if-none-match"]
        ifNoneMatch = tags.isEmpty ? nil : tags.joined(separator: ", ")
        range = headers.first(name: "range")
        ifRange = headers.first(name: "if-range")
    }
}

/// The reply to a payload fetch when memory holds everything it depends on — a recently verified caller, the
/// notification, the recipient check, the first fetch already recorded, the image — and nil otherwise, so the
/// router's path loads what is missing. It answers only successes; every refusal (a range past the image's end among
/// them) is the router's to give.
struct MemoryPayloadReplies: Sendable {
    let authenticator: Authenticator
    let payloads: PayloadMemory
    let clock: any WallClock
    let metrics: GatewayMetrics

    /// The reply to a fetch of notification `id` with `authorization`, naming `installationId` when the fetch did.
    func reply(
        id: Int64, installationId: String? = nil, authorization: String, method: HTTPRequest.Method, conditions: FetchConditions
    ) -> PayloadReply? {
        guard let caller = authenticator.recentlyVerifiedCaller(authorization: authorization),
            let cached = payloads.cachedNotification(id: id),
            // A text or link that varies by language is the router's, which reads Accept-Language.
            cached.record.content.localizations.isEmpty || cached.record.richType == .img,
            let isRecipient = payloads.cachedRecipient(notificationId: id, username: caller.username),
            PayloadAccess.refusal(of: cached.record, caller: caller, isRecipient: isRecipient, at: clock.now) == nil
        else { return nil }
        if PayloadAccess.recordsFetch(caller: caller, isRecipient: isRecipient),
            !payloads.isFetchRecorded(.init(notificationId: id, username: caller.username, installationId: installationId))
        {
            return nil
        }
        var image: PayloadMemory.Image?
        if case .image(let imageId) = cached.record.payload {
            guard let cachedImage = payloads.cachedImage(id: imageId) else { return nil }
            image = cachedImage
        }
        // Its text and link are never localized here, so its payload is the one every reader gets.
        let reply = PayloadReply(cached.record.payload, image: image, method: method, conditions: conditions)
        guard reply.status != .rangeNotSatisfiable else { return nil }
        metrics.payloadFetch(.servedFromMemory)
        payloads.egress?.add(reply.bodyBytes)
        return reply
    }
}
