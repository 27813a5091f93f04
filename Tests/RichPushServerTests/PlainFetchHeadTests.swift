import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import RichPushServer

/// The payload fetches read in front of a plain connection's decoder, and everything left to it.
@Suite("Payload fetch heads read from bytes")
struct PlainFetchHeadTests {
    static let limits = PlainFetchHead.Limits(headLength: 8192, fieldCount: 100)

    func read(_ text: String, limits: PlainFetchHead.Limits = limits) -> PlainFetchHead? {
        read(Array(text.utf8), limits: limits)
    }

    func read(_ bytes: [UInt8], limits: PlainFetchHead.Limits = limits) -> PlainFetchHead? {
        bytes.withUnsafeBytes {
            guard case .fetch(let head) = PlainFetchHead.read($0, limits: limits) else { return nil }
            return head
        }
    }

    func fetch(headers: String) -> String {
        "GET /api/notifications/42 HTTP/1.1\r\nHost: gateway:8080\r\n\(headers)\r\n"
    }

    @Test func aGetOfAPayloadIsReadWithItsIdCredentialsAndLength() throws {
        let text = fetch(headers: "Authorization: Basic YWxpY2U6cHc=\r\n")
        let head = try #require(read(text + "GET /next HTTP/1.1\r\n\r\n"))
        #expect(head.length == text.utf8.count)
        #expect(head.fetch.id == 42)
        #expect(head.fetch.installationId == nil)
        #expect(head.fetch.method == .get)
        #expect(head.fetch.authorization == "Basic YWxpY2U6cHc=")
        #expect(head.fetch.conditions.range == nil && head.fetch.conditions.ifNoneMatch == nil)
    }

    @Test func theInstallationOfTheQueryIsRead() throws {
        let head = try #require(read("GET /api/notifications/7?installationId=laptop-1 HTTP/1.1\r\nAuthorization: Bearer rp_x\r\n\r\n"))
        #expect(head.fetch.id == 7)
        #expect(head.fetch.installationId == "laptop-1")
    }

    @Test func fieldNamesAreReadInAnyCaseAndValuesWithoutTheSpaceBeforeThem() throws {
        let head = try #require(read(fetch(headers: "aUtHoRiZaTiOn:\t Basic YQ==\r\nCONNECTION: Keep-Alive\r\n")))
        #expect(head.fetch.authorization == "Basic YQ==")
    }

    @Test func theConditionsAreReadAndEntityTagsOnSeveralLinesAreOneList() throws {
        let head = try #require(
            read(
                fetch(
                    headers: "Authorization: Basic YQ==\r\nIf-None-Match: \"a\"\r\nRange: bytes=0-9\r\nif-none-match: \"b\"\r\nIf-Range: \"a\"\r\n"
                )))
        #expect(head.fetch.conditions.ifNoneMatch == "\"a\", \"b\"")
        #expect(head.fetch.conditions.range == "bytes=0-9")
        #expect(head.fetch.conditions.ifRange == "\"a\"")
    }

    @Test(
        "What the decoder reads instead",
        arguments: [
            "HEAD /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\n\r\n",
            "POST /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.0\r\nAuthorization: Basic YQ==\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nContent-Length: 0\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nConnection: close\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nConnection: keep-alive, Upgrade\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nUpgrade: websocket\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nExpect: 100-continue\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nAuthorization: Basic Yg==\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nRange: bytes=0-1\r\nRange: bytes=2-3\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\nAuthorization: Basic YQ==\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\nHost: x\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic\r\n YQ==\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization : Basic YQ==\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nX-Name: caf\u{e9}\r\n\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\nHost: x\r\n",
            "GET /api/notifications/42 HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /api/notifications/042 HTTP/1.1\r\nAuthorization: Basic YQ==\r\n\r\n",
            "GET /api/notifications/42/read HTTP/1.1\r\nAuthorization: Basic YQ==\r\n\r\n",
            "GET /api/notifications/42?lang=de HTTP/1.1\r\nAuthorization: Basic YQ==\r\n\r\n",
            "GET  /api/notifications/42 HTTP/1.1\r\nAuthorization: Basic YQ==\r\n\r\n",
        ])
    func whatTheDecoderReadsInstead(text: String) {
        #expect(read(text) == nil)
    }

    @Test func aHeadLongerOrWithMoreFieldsThanTheDecoderTakesIsTheDecoders() {
        let text = fetch(headers: "Authorization: Basic YQ==\r\nX-A: 1\r\nX-B: 2\r\n")
        #expect(read(text, limits: .init(headLength: text.utf8.count, fieldCount: 4)) != nil)
        #expect(read(text, limits: .init(headLength: text.utf8.count - 1, fieldCount: 4)) == nil)
        #expect(read(text, limits: .init(headLength: text.utf8.count, fieldCount: 3)) == nil)
    }

    /// What NIO's decoder reads of `bytes` followed by a request of its own: the parts of each request.
    func decoded(_ bytes: [UInt8]) throws -> [HTTPServerRequestPart] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
        var input = ByteBuffer(bytes: bytes)
        input.writeString("GET /after HTTP/1.1\r\n\r\n")
        try channel.writeInbound(input)
        var parts: [HTTPServerRequestPart] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        return parts
    }

    /// Every fetch this reads after a change of one byte of a fetch (replaced, inserted or left out) is the same to
    /// NIO's decoder: a `GET` of the same target with the same credentials and conditions, keeping the connection,
    /// ending where this says it ends.
    @Test func everyFetchReadHereIsTheSameFetchToTheDecoder() throws {
        let fetch = Array(
            "GET /api/notifications/42?installationId=pc HTTP/1.1\r\nHost: gw\r\nAuthorization: Basic YQ==\r\nRange: bytes=0-9\r\n\r\n".utf8)
        let changes: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x2C, 0x3A, 0x41, 0x61, 0x7F, 0x80, 0xFF, 0x30, 0x2D]
        var variants = [fetch]
        for index in fetch.indices {
            var without = fetch
            without.remove(at: index)
            variants.append(without)
            for byte in changes {
                var replaced = fetch
                replaced[index] = byte
                var inserted = fetch
                inserted.insert(byte, at: index)
                variants += [replaced, inserted]
            }
        }
        var readHere = 0
        for variant in variants {
            guard let head = read(variant) else { continue }
            readHere += 1
            let parts = try decoded(Array(variant[..<head.length]))
            guard parts.count == 4, case .head(let request) = parts[0], case .end(nil) = parts[1], case .head(let after) = parts[2],
                case .end(nil) = parts[3]
            else {
                Issue.record("the decoder read \(parts) of \(String(decoding: variant, as: UTF8.self).debugDescription)")
                continue
            }
            let target = FastPathFetch.payloadTarget(in: request.uri.utf8)
            #expect(request.method == .GET && request.version == .http1_1 && request.isKeepAlive)
            #expect(target?.id == head.fetch.id && target?.installationId == head.fetch.installationId)
            #expect(request.headers["authorization"] == [head.fetch.authorization])
            #expect(request.headers["range"] == (head.fetch.conditions.range.map { [$0] } ?? []))
            #expect(!request.headers.contains(name: "content-length") && !request.headers.contains(name: "transfer-encoding"))
            #expect(after.uri == "/after")
        }
        // Most changes fall in the header values, where they keep a fetch readable.
        #expect(readHere > 200)
    }
}
