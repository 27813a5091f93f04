import CompressNIO
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// HTTP as clients and validators nobody on the team wrote expect it (RFC 9110): HEAD, 405, OPTIONS, ranges,
/// validators and gzip.
@Suite("HTTP semantics")
struct HTTPSemanticsTests {
    @Test(arguments: ["/health", "/metrics", "/api/users/me", "/openapi.yaml", "/"])
    func headAnswersWhereverGetDoesWithItsHeadersAndNoBody(path: String) async throws {
        try await TestGateway().run { session in
            let get = try await session.request(.get, path, as: .admin)
            let head = try await session.request(.head, path, as: .admin)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            if path != "/metrics" { #expect(head.headers[.contentLength] == get.headers[.contentLength]) }
        }
    }

    @Test func aWrongMethodOnARoutedPathIs405NamingTheMethodsItTakes() async throws {
        try await TestGateway().run { session in
            let health = try await session.request(.post, "/health")
            #expect(health.status == .methodNotAllowed)
            #expect(health.headers[.allow] == "GET, HEAD, OPTIONS")
            #expect(try health.error().code == "request.methodNotAllowed")
            let notification = try await session.request(.put, "/api/notifications/7", as: .admin)
            #expect(notification.status == .methodNotAllowed)
            #expect(notification.headers[.allow] == "DELETE, GET, HEAD, OPTIONS")
        }
    }

    @Test func headOfAPathRoutedOnlyForOtherMethodsIs405WithoutABody() async throws {
        try await TestGateway().run { session in
            let head = try await session.request(.head, "/api/notifications/7/retry", as: .admin)
            #expect(head.status == .methodNotAllowed)
            #expect(head.headers[.allow] == "OPTIONS, POST")
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test func optionsOnARoutedPathTellsItsMethods() async throws {
        try await TestGateway().run { session in
            let options = try await session.request(.options, "/api/notifications")
            #expect(options.status == .noContent)
            #expect(options.headers[.allow] == "GET, HEAD, OPTIONS, POST")
        }
    }

    @Test func aPathNothingIsRoutedAtStays404WhateverTheMethod() async throws {
        try await TestGateway().run { session in
            for method in [HTTPRequest.Method.get, .post, .options, .head] {
                let answer = try await session.request(method, "/api/nothing-here", as: .admin)
                #expect(answer.status == .notFound, "\(method)")
            }
        }
    }

    @Test func aStaticFileAnswersOneRangeAndRefusesOnePastItsEnd() async throws {
        try await TestGateway().run(.live) { session in
            let logo = try await session.request(.get, "/logo.png")
            let size = logo.body.readableBytes
            let tail = try await session.request(.get, "/logo.png", headers: [.range: "bytes=-100"])
            #expect(tail.status == .partialContent)
            #expect(tail.headers[.contentRange] == "bytes \(size - 100)-\(size - 1)/\(size)")
            #expect(tail.body == logo.body.getSlice(at: size - 100, length: 100))
            for range in ["bytes=99999999-", "bytes=\(size)-"] {
                let past = try await session.request(.get, "/logo.png", headers: [.range: range])
                #expect(past.status == .rangeNotSatisfiable, "\(range)")
                #expect(past.headers[.contentRange] == "bytes */\(size)")
            }
            // The connection is still in step after them.
            #expect(try await session.request(.get, "/logo.png").body == logo.body)
        }
    }

    @Test(arguments: ["/openapi.yaml", "/console/app.js"])
    func aFileTheClientHoldsIsNotModified(path: String) async throws {
        try await TestGateway().run { session in
            let first = try await session.request(.get, path)
            let tag = try #require(first.headers[.eTag])
            #expect(try await session.request(.get, path, headers: [.ifNoneMatch: tag]).status == .notModified)
            let modified = try #require(first.headers[.lastModified])
            #expect(try await session.request(.get, path, headers: [.ifModifiedSince: modified]).status == .notModified)
            #expect(try await session.request(.get, path, headers: [.ifNoneMatch: "\"another\""]).status == .ok)
        }
    }

    @Test func theOpenAPIDocumentIsGzippedWhenAskedAndUnpacksToTheSameBytes() async throws {
        try await TestGateway().run { session in
            let plain = try await session.request(.get, "/openapi.yaml")
            let gzipped = try await session.request(.get, "/openapi.yaml", headers: [.acceptEncoding: "gzip, deflate, br"])
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            #expect(gzipped.headers[.vary] == "Accept-Encoding")
            #expect(gzipped.body.readableBytes * 3 < plain.body.readableBytes)
            #expect(try unpacked(gzipped.body) == plain.body)
            #expect(gzipped.headers[.eTag] != plain.headers[.eTag])
            let refused = try await session.request(.get, "/openapi.yaml", headers: [.acceptEncoding: "gzip;q=0"])
            #expect(refused.headers[.contentEncoding] == nil)
        }
    }

    @Test func aLongJSONAnswerIsGzippedWhenAskedAndAShortOneIsNot() async throws {
        try await TestGateway().run { session in
            for index in 0..<20 { try await session.createUser("reader\(index)") }
            let plain = try await session.request(.get, "/api/audit", as: .admin)
            #expect(plain.body.readableBytes > 1024)
            let gzipped = try await session.request(.get, "/api/audit", as: .admin, headers: [.acceptEncoding: "gzip"])
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            #expect(gzipped.headers[.contentType] == plain.headers[.contentType])
            #expect(try unpacked(gzipped.body) == plain.body)
            let short = try await session.request(.get, "/api/users/me", as: .admin, headers: [.acceptEncoding: "gzip"])
            #expect(short.headers[.contentEncoding] == nil)
        }
    }

    func unpacked(_ body: ByteBuffer) throws -> ByteBuffer {
        var body = body
        return try body.decompress(with: .gzip())
    }
}
