import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import TestSupport
import Testing

@testable import RichPushServer

/// The head the payload fast path writes as bytes on plain HTTP/1.1.
@Suite("An HTTP/1.1 answer's head written as bytes")
struct HTTP1ResponseHeadTests {
    /// The answers that carry a file: the whole image and a range of it.
    @Test(arguments: [HTTPResponse.Status.ok, .partialContent])
    func itIsTheHeadNIOHTTP1sEncoderWrites(status: HTTPResponse.Status) throws {
        let fields: HTTPFields = [.eTag: "\"abc\"", .contentType: "image/png", .contentLength: "1234", .contentRange: "bytes 0-1233/5000"]
        var written = ByteBuffer()
        written.writeHTTP1StatusAndFields(status, fields)
        written.writeHTTP1HeadEnd(date: "Sun, 06 Dec 2026 17:00:00 GMT", server: "richpush")

        let channel = EmbeddedChannel(handler: HTTPResponseEncoder())
        var headers = HTTPHeaders(fields.map { ($0.name.rawName, $0.value) })
        headers.add(name: "Date", value: "Sun, 06 Dec 2026 17:00:00 GMT")
        headers.add(name: "Server", value: "richpush")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status.code), headers: headers)
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        let encoded = try #require(try channel.readOutbound(as: IOData.self))
        guard case .byteBuffer(let expected) = encoded else { throw TestFailure("the encoder wrote a file region") }
        #expect(String(buffer: written) == String(buffer: expected))
    }
}
