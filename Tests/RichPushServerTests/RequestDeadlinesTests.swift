import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import RichPushServer

/// The deadlines of one connection, behind the real HTTP/1.1 decoder, on an event loop whose clock the test moves.
@Suite("Connection deadlines")
struct RequestDeadlinesTests {
    final class Connection {
        let loop = EmbeddedEventLoop()
        let channel: EmbeddedChannel
        let deadlines: RequestDeadlines

        init(headerTimeout: TimeAmount = .seconds(10), idleTimeout: TimeAmount = .seconds(60), answeringHeads: Bool = false) throws {
            channel = EmbeddedChannel(loop: loop)
            deadlines = RequestDeadlines(policy: .init(headerTimeout: headerTimeout, idleTimeout: idleTimeout))
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
            try channel.pipeline.syncOperations.addHandlers([HTTP1ToHTTPServerCodec(secure: false), deadlines])
            try channel.pipeline.syncOperations.addHandler(ByteArrivals(), position: .first)
            if answeringHeads { try channel.pipeline.syncOperations.addHandler(AnswersBelowAtHead(deadlines: deadlines)) }
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
        }

        func respond(ending: Bool = true) throws {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            if ending { try channel.writeOutbound(HTTPResponsePart.end(nil)) }
        }

        func wait(_ time: TimeAmount) {
            loop.advanceTime(by: time)
        }

        var isOpen: Bool { channel.isActive }
    }

    static let request = "GET /health HTTP/1.1\r\nHost: gateway\r\n\r\n"

    @Test func aHeaderStillIncompleteTenSecondsAfterItsFirstByteClosesTheConnection() throws {
        let connection = try Connection()
        connection.wait(.seconds(30))
        try connection.send("GET /health HTTP/1.1\r\nHo")
        connection.wait(.milliseconds(9_999))
        #expect(connection.isOpen)
        connection.wait(.milliseconds(1))
        #expect(!connection.isOpen)
    }

    @Test func aHeaderSentOneByteAtATimeDoesNotBuyMoreTime() throws {
        let connection = try Connection()
        var sent = 0
        for byte in "GET /health HTTP/1.1\r\nHost: gateway\r\n".utf8 where connection.isOpen {
            try connection.send(String(UnicodeScalar(byte)))
            sent += 1
            connection.wait(.milliseconds(600))
        }
        #expect(!connection.isOpen)
        #expect(sent == 17)
    }

    @Test func aConnectionWithNoRequestClosesAfterSixtySeconds() throws {
        let connection = try Connection()
        connection.wait(.seconds(59))
        #expect(connection.isOpen)
        connection.wait(.seconds(1))
        #expect(!connection.isOpen)
    }

    @Test func theIdleTimeStartsWhenTheResponseEnds() throws {
        let connection = try Connection()
        try connection.send(Self.request)
        connection.wait(.seconds(100))
        try connection.respond()
        connection.wait(.seconds(59))
        #expect(connection.isOpen)
        connection.wait(.seconds(1))
        #expect(!connection.isOpen)
    }

    /// As the payload fast path does: the answer goes below the HTTP handlers while the request's head is read,
    /// before its end is.
    final class AnswersBelowAtHead: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        let deadlines: RequestDeadlines

        init(deadlines: RequestDeadlines) {
            self.deadlines = deadlines
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) { deadlines.answeredBelow() }
        }
    }

    @Test func anAnswerWrittenBelowTheHTTPHandlersAtTheRequestsHeadStartsTheIdleTime() throws {
        let connection = try Connection(answeringHeads: true)
        try connection.send(Self.request)
        connection.wait(.seconds(59))
        #expect(connection.isOpen)
        connection.wait(.seconds(1))
        #expect(!connection.isOpen)
    }

    @Test func aStreamBeingAnsweredStaysOpenForHours() throws {
        let connection = try Connection()
        try connection.send(Self.request)
        try connection.respond(ending: false)
        connection.wait(.hours(5))
        #expect(connection.isOpen)
    }

    @Test func aKeepAliveConnectionInUseStaysOpen() throws {
        let connection = try Connection()
        for _ in 0..<20 {
            connection.wait(.seconds(45))
            try connection.send(Self.request)
            try connection.respond()
        }
        #expect(connection.isOpen)
    }

    @Test func aBodyThatStopsArrivingClosesTheConnectionAfterSixtySeconds() throws {
        let connection = try Connection()
        try connection.send("POST /api/notifications HTTP/1.1\r\nHost: gateway\r\nContent-Length: 100\r\n\r\n{\"message\":")
        connection.wait(.seconds(59))
        try connection.send("\"slow")
        connection.wait(.seconds(59))
        #expect(connection.isOpen)
        connection.wait(.seconds(1))
        #expect(!connection.isOpen)
    }
}
