import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import RichPushServer

/// The plain connection's answers on the wire, behind the real HTTP/1.1 decoder: what a client reads back.
@Suite("HTTP/1.1 response encoding")
struct HTTP1ResponseEncoderTests {
    final class Connection {
        let channel = EmbeddedChannel()
        let encoder = HTTP1ResponseEncoder()

        init() throws {
            try channel.pipeline.syncOperations.addHandlers([ByteToMessageHandler(HTTPRequestDecoder()), encoder])
        }

        /// Sends requests of `methods` to `/`, one after the other on the connection, and reads them on the other side.
        func receive(_ methods: HTTPMethod...) throws {
            let text = methods.map { "\($0.rawValue) / HTTP/1.1\r\nHost: gateway\r\n\r\n" }.joined()
            try channel.writeInbound(ByteBuffer(string: text))
            while try channel.readInbound(as: HTTPServerRequestPart.self) != nil {}
        }

        func answer(_ status: HTTPResponseStatus, _ headers: HTTPHeaders = [:], body: String? = nil) throws {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
            if let body { try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body)))) }
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }

        /// Writes the whole answer as the payload fast path does: its head already encoded for a `GET`.
        func answerAsBytes(_ status: HTTPResponseStatus, _ headers: HTTPHeaders, body: String? = nil) {
            let head = HTTP1ResponseEncoder.encoded(
                HTTPResponseHead(version: .http1_1, status: status, headers: headers), respondingTo: .GET, allocator: channel.allocator)
            encoder.writeAnswer(head, body: body.map { .byteBuffer(ByteBuffer(string: $0)) }, promise: nil)
        }

        /// Everything written to the socket so far.
        func sent() throws -> String {
            var text = ""
            while let part = try channel.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let buffer) = part else { continue }
                text += String(buffer: buffer)
            }
            return text
        }
    }

    @Test func anAnswerWithALengthIsSentAsItIs() throws {
        let connection = try Connection()
        try connection.receive(.GET)
        try connection.answer(.ok, ["Content-Length": "5", "Transfer-Encoding": "chunked"], body: "hello")
        #expect(try connection.sent() == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
    }

    @Test func anAnswerOfUnknownLengthIsChunked() throws {
        let connection = try Connection()
        try connection.receive(.GET)
        try connection.answer(.ok, body: "a body of 18 bytes")
        #expect(try connection.sent() == "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n12\r\na body of 18 bytes\r\n0\r\n\r\n")
    }

    @Test func theAnswerToHeadKeepsItsFramingHeadersAndSendsNoBody() throws {
        let connection = try Connection()
        try connection.receive(.HEAD, .GET)
        try connection.channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        let refused = connection.channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "body"))))
        try connection.channel.writeOutbound(HTTPServerResponsePart.end(nil))
        try connection.answer(.ok, body: "next")
        #expect(throws: NIOHTTPResponseEncoderError.self) { try refused.wait() }
        #expect(
            try connection.sent()
                == "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                + "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nnext\r\n0\r\n\r\n")
    }

    @Test(arguments: [HTTPResponseStatus.noContent, .notModified])
    func aBodilessStatusCarriesNoFramingHeaders(status: HTTPResponseStatus) throws {
        let connection = try Connection()
        try connection.receive(.GET)
        try connection.answer(status, ["Content-Length": "12", "ETag": "\"a\""])
        #expect(try connection.sent() == "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nETag: \"a\"\r\n\r\n")
    }

    @Test func anInterimAnswerLeavesTheRequestToTheFinalOne() throws {
        let connection = try Connection()
        try connection.receive(.HEAD)
        try connection.channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .continue)))
        try connection.answer(.ok, ["Content-Length": "4"])
        #expect(try connection.sent() == "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n")
    }

    @Test func trailersEndAChunkedBody() throws {
        let connection = try Connection()
        try connection.receive(.GET)
        try connection.channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try connection.channel.writeOutbound(HTTPServerResponsePart.end(["Digest": "x"]))
        #expect(try connection.sent() == "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\nDigest: x\r\n\r\n")
    }

    @Test func anAnswerWrittenAsBytesAnswersTheOldestRequest() throws {
        let connection = try Connection()
        try connection.receive(.GET, .HEAD)
        connection.answerAsBytes(.ok, ["Content-Length": "4"], body: "fast")
        try connection.answer(.ok, ["Content-Length": "4"])
        #expect(try connection.sent() == "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfast" + "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n")
    }

    @Test func anAnswerWrittenAsBytesToHeadSendsItsHeadAlone() throws {
        let connection = try Connection()
        try connection.receive(.HEAD, .GET)
        connection.answerAsBytes(.found, ["Location": "https://example.com/"])
        try connection.answer(.ok, body: "next")
        #expect(
            try connection.sent()
                == "HTTP/1.1 302 Found\r\nLocation: https://example.com/\r\ntransfer-encoding: chunked\r\n\r\n"
                + "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nnext\r\n0\r\n\r\n")
    }

    @Test func aWholeAnswerInBytesAnswersTheOldestRequestAndTheNextAnswerItsOwn() throws {
        let connection = try Connection()
        try connection.receive(.GET, .HEAD)
        connection.encoder.writeWholeAnswer(.byteBuffer(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfast")), promise: nil)
        connection.answerAsBytes(.ok, ["Content-Length": "4"], body: "next")
        connection.channel.flush()
        #expect(try connection.sent() == "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfast" + "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n")
    }
}
