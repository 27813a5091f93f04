import Glibc
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The payload fast path among HTTP types: over HTTPS and on HTTP/2 streams, behind the handlers that add headers to
/// answers (CORS, security) and turn session cookies into credentials. The answer's body comes from memory.
struct HTTPTypesPayloadWire: PayloadFetchWire {
    typealias RequestPart = HTTPRequestPart
    typealias ResponsePart = HTTPResponsePart

    static func kind(of part: HTTPRequestPart) -> RequestPartKind {
        switch part {
        case .head(let head):
            let fields = head.headerFields
            return .head(
                FastPathFetch(
                    method: head.method, target: (head.path ?? "").utf8, authorization: fields[.authorization],
                    keepsConnection: fields[.connection].map { $0.lowercased() == "keep-alive" } ?? true,
                    hasBody: fields[.contentLength].map { $0 != "0" } ?? false || fields[.transferEncoding] != nil,
                    conditions: { FetchConditions(fields) }))
        case .body: return .body
        case .end: return .end
        }
    }

    static func isEnd(_ part: HTTPResponsePart) -> Bool {
        if case .end = part { return true }
        return false
    }

    func write(_ reply: PayloadReply, context: ChannelHandlerContext) {
        var headers = reply.headers
        headers[.date] = HTTPDate.now
        headers[.server] = PayloadReply.server
        context.write(NIOAny(HTTPResponsePart.head(HTTPResponse(status: reply.status, headerFields: headers))), promise: nil)
        if let body = reply.body { context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil) }
        context.write(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
    }

    func flushed(context: ChannelHandlerContext) {}
}

/// The payload fast path right behind a plain HTTP/1.1 connection's decoder, in NIOHTTP1's parts: a fetch answered
/// here is never converted to HTTP types and back, its head goes to the connection's ``HTTP1ResponseEncoder`` as
/// bytes (the same for every fetch of an image within a second), and an image goes from its file to the socket
/// without a copy (`sendfile`). The whole answer to a `GET` of an image, head and image, goes from one file made for
/// the second, as one `sendfile`.
///
/// The handlers above never see such a fetch, so this does their part: the reply already carries the security
/// headers, and the connection's ``RequestDeadlines`` is told the request was answered. The gateway puts it on a
/// connection only when no CORS headers are to be added, and a fetch whose credentials are a session cookie goes on
/// to the HTTP types fast path above, after ``SessionCookies``.
struct HTTP1PayloadWire: PayloadFetchWire {
    typealias RequestPart = HTTPServerRequestPart
    typealias ResponsePart = HTTPServerResponsePart

    /// The connection's deadlines, which an answer written here does not pass.
    let deadlines: RequestDeadlines
    /// The connection's encoder, right below the fast path.
    let encoder: HTTP1ResponseEncoder
    /// Whether TCP_CORK holds this connection's segments until the flush ends, so a head written before its file
    /// leaves in the file's first segment instead of a packet of its own (nginx's `tcp_nopush`).
    private var corked = false
    /// The head of the last whole image answered here: a device's or load test's repeated fetch within the same
    /// second sends it again instead of encoding the image's headers to date them.
    private var lastWholeImageHead: DatedHead?
    /// The last image file sent here and its handle on the connection's loop, held together so the handle stays
    /// open for every write of it, sent or waiting: the connection's next fetch of the image takes no lock the loops
    /// share.
    private var lastFile: (image: ImageFile, handle: NIOFileHandle)?
    private var syncOptions: (any NIOSynchronousChannelOptions)?

    init(deadlines: RequestDeadlines, encoder: HTTP1ResponseEncoder) {
        self.deadlines = deadlines
        self.encoder = encoder
    }

    static func kind(of part: HTTPServerRequestPart) -> RequestPartKind {
        switch part {
        case .head(let head):
            let method: HTTPRequest.Method
            switch head.method {
            case .GET: method = .get
            case .HEAD: method = .head
            default: return .head(nil)
            }
            let headers = head.headers
            return .head(
                FastPathFetch(
                    method: method, target: head.uri.utf8, authorization: headers.first(name: "authorization"),
                    keepsConnection: head.isKeepAlive,
                    hasBody: headers.first(name: "content-length").map { $0 != "0" } ?? false || headers.contains(name: "transfer-encoding"),
                    conditions: { FetchConditions(headers) }))
        case .body: return .body
        case .end: return .end
        }
    }

    static func isEnd(_ part: HTTPServerResponsePart) -> Bool {
        if case .end = part { return true }
        return false
    }

    mutating func write(_ reply: PayloadReply, context: ChannelHandlerContext) {
        var sent: EventLoopPromise<Void>?
        let head = head(of: reply, allocator: context.channel.allocator)
        if let answer = answerFile(of: reply),
            let region = region(of: (answer, 0..<answer.size), on: context.eventLoop, sent: &sent)
        {
            encoder.writeWholeAnswer(.fileRegion(region), promise: sent)
        } else {
            let region = reply.file.flatMap { file in self.region(of: file, on: context.eventLoop, sent: &sent) }
            if region != nil, !corked {
                corked = (try? options(of: context.channel)?.setOption(Self.cork, value: 1)) != nil
            }
            encoder.writeAnswer(head, body: region.map { .fileRegion($0) } ?? reply.body.map { .byteBuffer($0) }, promise: sent)
        }
        deadlines.answeredBelow()
    }

    /// The file of `reply`'s whole answer, head and image, when it sends a whole image; asked of the image with the
    /// head ``head(of:allocator:)`` made for the second, until the image gives a file or none for the second.
    private mutating func answerFile(of reply: PayloadReply) -> ImageFile? {
        guard let image = reply.wholeImageSent, var dated = lastWholeImageHead, dated.image === image else { return nil }
        guard case .later = dated.answerFile else { return dated.answerFile.file }
        dated.answerFile = image.answerFile(at: dated.second, head: dated.head.bytes)
        lastWholeImageHead = dated
        return dated.answerFile.file
    }

    mutating func flushed(context: ChannelHandlerContext) {
        guard corked else { return }
        corked = false
        try? options(of: context.channel)?.setOption(Self.cork, value: 0)
    }

    /// The connection's options, asked for once: each ask builds the channel's generic options type again.
    private mutating func options(of channel: any Channel) -> (any NIOSynchronousChannelOptions)? {
        if syncOptions == nil { syncOptions = channel.syncOptions }
        return syncOptions
    }

    /// `file`'s bytes for one write on `loop`, the connection's loop; nil when the file has no descriptor for it.
    /// When the file is another than the last one sent, `sent` is the promise of the write, which holds the last one
    /// open until the writes ahead of it, its own among them, are done.
    private mutating func region(
        of file: (image: ImageFile, range: Range<Int>), on loop: any EventLoop, sent: inout EventLoopPromise<Void>?
    ) -> FileRegion? {
        if lastFile?.image !== file.image {
            guard let handle = file.image.handle(for: loop) else { return nil }
            if let retired = lastFile {
                sent = loop.makePromise(of: Void.self)
                sent?.futureResult.whenComplete { _ in withExtendedLifetime(retired) {} }
            }
            lastFile = (file.image, handle)
        }
        return lastFile.map { FileRegion(fileHandle: $0.handle, readerIndex: file.range.lowerBound, endIndex: file.range.upperBound) }
    }

    /// The head of `reply`, dated now.
    private mutating func head(of reply: PayloadReply, allocator: ByteBufferAllocator) -> HTTP1ResponseEncoder.EncodedHead {
        let second = HTTPDate.currentSecond
        let image = reply.wholeImage
        if let image, let last = lastWholeImageHead, last.image === image, last.second == second { return last.head }
        var headers = image?.wholeAnswerHTTP1Headers ?? HTTPHeaders(reply.headers)
        headers.add(name: "Date", value: HTTPDate.text(at: second))
        headers.add(name: "Server", value: PayloadReply.server)
        let head = HTTP1ResponseEncoder.encoded(
            HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status.code), headers: headers),
            respondingTo: .GET, allocator: allocator)
        if let image { lastWholeImageHead = DatedHead(image: image, second: second, head: head) }
        return head
    }

    /// A head, the whole image it answered (`GET` and `HEAD` alike) and the second it is dated. Held, not compared by
    /// address, so no image made later can match it; it keeps an image the cache let go in memory, and its file open,
    /// until the connection's next fetch of another image or its end. (A weak reference would move every image's
    /// reference counts to their slow path.)
    private struct DatedHead {
        let image: PayloadMemory.Image
        let second: Int
        let head: HTTP1ResponseEncoder.EncodedHead
        /// The image's whole answer for the second, head and image in one file (``PayloadMemory/Image/answerFile(at:head:)``).
        var answerFile = PayloadMemory.Image.AnswerFileAsk.later
    }

    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_CORK))
}

extension PayloadMemory.Image.AnswerFileAsk {
    var file: ImageFile? {
        guard case .file(let file) = self else { return nil }
        return file
    }
}
