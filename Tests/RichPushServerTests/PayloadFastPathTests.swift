import AsyncHTTPClient
import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import NIOPosix
import Testing

@testable import RichPushServer

/// The payload fetch answered from memory on the event loop, over real sockets. Serialized, because the fetch
/// counters are the process's: only this suite's live fetches can reach the fast path.
@Suite("Payload fetches from memory", .serialized)
struct PayloadFastPathTests {
    /// A gateway with alice, her device and an image notification to her, of `png` or the fixture; `body` gets the
    /// notification id.
    func withImageNotification(png: Data? = nil, _ body: @Sendable (Session, Credentials, Int64) async throws -> Void) async throws {
        try await TestGateway({
            $0.payloadNotificationTimeToLive = 3600
            $0.credentialRevalidation = 3600
        }).run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let image: Int64
            if let png {
                let upload = try await session.request(
                    .post, "/api/images", as: .admin, body: ByteBuffer(data: png), headers: [.contentType: "image/png"])
                image = try #require(try upload.json()["id"] as? Int64)
            } else {
                image = try await session.upload(as: .admin)
            }
            let id = try await session.send(#"{"message":"m","richType":"img","imageId":\#(image),"audience":"username:alice"}"#, as: .admin)
            try await body(session, alice, id)
        }
    }

    /// One request of `method` to `path` as `user`, as bytes to pipeline with others.
    func rawRequest(_ method: HTTPRequest.Method, _ path: String, as user: Credentials) -> String {
        "\(method.rawValue) \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: \(user.authorization)\r\n\r\n"
    }

    /// The `richpush_payload_fetches_total` series of `path` and `outcome`.
    func fetches(_ session: Session, outcome: String = "ok", path: String) async throws -> Int {
        let text = String(buffer: try await session.request(.get, "/metrics").body)
        let line = text.split(separator: "\n").first {
            $0.hasPrefix("richpush_payload_fetches_total{") && $0.contains("outcome=\"\(outcome)\"") && $0.contains("path=\"\(path)\"")
        }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test func aRepeatedFetchIsAnsweredFromMemoryWithTheSameBytesAndHeaders() async throws {
        try await withImageNotification { session, alice, id in
            let first = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            // The gateway keeps the notification in memory for the test's hour: the second fetch is the fast path's.
            let before = try await fetches(session, path: "memory")
            let second = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(try await fetches(session, path: "memory") == before + 1)
            #expect(second.status == .ok)
            #expect(second.body == first.body)
            #expect(second.body == ByteBuffer(data: try fixture("valid-rgba.png")))
            for field in [HTTPField.Name.eTag, .contentType, .contentLength, .cacheControl, .server] {
                #expect(second.headers[field] == first.headers[field], "\(field)")
            }
            #expect(second.headers[.date] != nil)
            #expect(second.headers[SecurityHeaders.contentTypeOptions] == "nosniff")
            #expect(second.headers[SecurityHeaders.contentSecurityPolicy] == first.headers[SecurityHeaders.contentSecurityPolicy])
        }
    }

    @Test func aMatchingEntityTagIsNotModifiedAndHeadHasNoBody() async throws {
        try await withImageNotification { session, alice, id in
            let first = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let etag = try #require(first.headers[.eTag])
            let notModified = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.readableBytes == 0)
            let head = try await session.request(.head, "/api/notifications/\(id)", as: alice)
            #expect(head.status == .ok)
            #expect(head.headers[.contentLength] == first.headers[.contentLength])
            #expect(head.body.readableBytes == 0)
        }
    }

    /// `If-None-Match` on two lines is one list of tags, as on one line: the tag on the second line matches.
    @Test func entityTagsOnSeveralLinesAreOneList() async throws {
        try await withImageNotification { session, alice, id in
            let etag = try #require(try await session.request(.get, "/api/notifications/\(id)", as: alice).headers[.eTag])
            let before = try await fetches(session, path: "memory")
            let request =
                "GET /api/notifications/\(id) HTTP/1.1\r\nHost: x\r\nAuthorization: \(alice.authorization)\r\n"
                + "If-None-Match: \"other\"\r\nIf-None-Match: \(etag)\r\n\r\n"
            let missing = rawRequest(.get, "/api/notifications/999", as: alice)
            let answer = try await rawHTTP(port: session.client.port!, request + missing)
            #expect(answer.hasPrefix("HTTP/1.1 304 Not Modified"))
            #expect(try await fetches(session, path: "memory") == before + 1)
        }
    }

    /// A browser's fetch with its session cookie alone is answered from memory too, once the cookie became its token.
    @Test func aFetchWithASessionCookieIsAnsweredFromMemory() async throws {
        try await withImageNotification { session, alice, id in
            let signIn = try await session.request(.post, "/api/session", as: alice)
            let cookie = try #require(signIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let first = try await session.request(.get, "/api/notifications/\(id)", headers: [.cookie: cookie])
            let before = try await fetches(session, path: "memory")
            let second = try await session.request(.get, "/api/notifications/\(id)", headers: [.cookie: cookie])
            #expect(try await fetches(session, path: "memory") == before + 1)
            #expect(second.status == .ok)
            #expect(second.body == first.body)
        }
    }

    @Test(arguments: [false, true])
    func aRangeOfTheImageIsThatPartOfItsBytesFromMemoryOrTheStore(fromMemory: Bool) async throws {
        try await withImageNotification { session, alice, id in
            if fromMemory { _ = try await session.request(.get, "/api/notifications/\(id)", as: alice) }
            let image = ByteBuffer(data: try fixture("valid-rgba.png"))
            let size = image.readableBytes
            let before = try await fetches(session, path: "memory")
            let tail = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.range: "bytes=-100"])
            #expect(try await fetches(session, path: "memory") == before + (fromMemory ? 1 : 0))
            #expect(tail.status == .partialContent)
            #expect(tail.headers[.contentRange] == "bytes \(size - 100)-\(size - 1)/\(size)")
            #expect(tail.headers[.contentLength] == "100")
            #expect(tail.body == image.getSlice(at: size - 100, length: 100))
            let middle = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.range: "bytes=10-19"])
            #expect(middle.status == .partialContent)
            #expect(middle.body == image.getSlice(at: 10, length: 10))
            #expect(middle.headers[.acceptRanges] == "bytes")
        }
    }

    @Test func aRangePastTheImageIsA416NamingItsSize() async throws {
        try await withImageNotification { session, alice, id in
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let size = try fixture("valid-rgba.png").count
            let past = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.range: "bytes=99999999-"])
            #expect(past.status == .rangeNotSatisfiable)
            #expect(past.headers[.contentRange] == "bytes */\(size)")
            #expect(try past.error().code == "request.rangeNotSatisfiable")
            let atTheEnd = try await session.request(.get, "/api/notifications/\(id)", as: alice, headers: [.range: "bytes=\(size)-"])
            #expect(atTheEnd.status == .rangeNotSatisfiable)
            // The connection is still in step: the next answer is the whole image.
            let whole = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(whole.status == .ok)
            #expect(whole.body.readableBytes == size)
        }
    }

    @Test func aRangeForAnotherVersionOfTheImageIsTheWholeImage() async throws {
        try await withImageNotification { session, alice, id in
            let size = try fixture("valid-rgba.png").count
            let answer = try await session.request(
                .get, "/api/notifications/\(id)", as: alice, headers: [.range: "bytes=0-9", .ifRange: "\"another-version\""])
            #expect(answer.status == .ok)
            #expect(answer.body.readableBytes == size)
        }
    }

    @Test func aWrongPasswordIsNeverAnsweredFromMemory() async throws {
        try await withImageNotification { session, alice, id in
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let wrong = Credentials(username: "alice", password: "not-her-password")
            let response = try await session.request(.get, "/api/notifications/\(id)", as: wrong)
            #expect(response.status == .unauthorized)
            #expect(try response.error().code == "auth.required")
        }
    }

    @Test func aRecalledNotificationIsGoneAtOnceThoughItWasInMemory() async throws {
        try await withImageNotification { session, alice, id in
            let first = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(first.status == .ok)
            let recall = try await session.request(.delete, "/api/notifications/\(id)", as: .admin)
            #expect(recall.status == .noContent)
            let afterRecall = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            #expect(afterRecall.status == .gone)
        }
    }

    /// A campaign's devices fetch its image at the same moment, over plain HTTP, on both event loops: each gets it whole.
    @Test func devicesFetchingOneImageAtOnceEachGetItWhole() async throws {
        let png = try await noisePNG()
        try await withImageNotification(png: png) { session, alice, id in
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            let url = "http://127.0.0.1:\(session.client.port!)/api/notifications/\(id)"
            let sizes = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        var request = HTTPClientRequest(url: url)
                        request.headers.add(name: "Authorization", value: alice.authorization)
                        guard let answer = try? await client.execute(request, timeout: .seconds(60)), answer.status == .ok else { return -1 }
                        return (try? await answer.body.collect(upTo: png.count + 1).readableBytes) ?? -1
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            try await client.shutdown()
            #expect(sizes.filter { $0 == png.count }.count == 64, "every fetch got the whole image")
        }
    }

    /// An image sent as a file, then an answer to a HEAD, then a routed answer: each keeps what it should carry (the
    /// HTTP/1.1 encoder pairs answers with their requests' methods, the fetch read in front of the decoder among them,
    /// and leaves out the body of an answer to a HEAD).
    @Test func anAnswerAfterAnImageSentAsAFileAndAHeadKeepsItsBody() async throws {
        try await withImageNotification { session, alice, id in
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let image = rawRequest(.get, "/api/notifications/\(id)", as: alice)
            let head = rawRequest(.head, "/api/notifications/\(id)", as: alice)
            let routed = rawRequest(.get, "/api/users/me", as: alice)
            let missing = rawRequest(.get, "/api/notifications/999", as: alice)
            let answer = try await rawHTTP(port: session.client.port!, image + head + routed + missing)
            let responses = Array(answer.components(separatedBy: "HTTP/1.1 ").dropFirst())
            #expect(responses.map { $0.prefix(3) } == ["200", "200", "200", "404"])
            // Every PNG's first chunk is its IHDR.
            #expect(responses[0].contains("IHDR"))
            #expect(responses[1].hasSuffix("\r\n\r\n"))
            #expect(responses[2].hasSuffix(#"{"role":"member","username":"alice"}"#))
            #expect(responses[3].contains(#""error""#))
        }
    }

    /// One connection fetching two images in turn: each answer carries its own image's headers, though a connection
    /// answers an image it answered before with the head it made for it.
    @Test func aConnectionFetchingTwoImagesInTurnGetsEachItsOwnHeaders() async throws {
        let otherPNG = try await noisePNG()
        try await withImageNotification { session, alice, id in
            let upload = try await session.request(
                .post, "/api/images", as: .admin, body: ByteBuffer(data: otherPNG), headers: [.contentType: "image/png"])
            let otherImage = try #require(try upload.json()["id"] as? Int64)
            let other = try await session.send(
                #"{"message":"m","richType":"img","imageId":\#(otherImage),"audience":"username:alice"}"#, as: .admin)
            var expected: [String] = []
            for notification in [id, other] {
                let answer = try await session.request(.get, "/api/notifications/\(notification)", as: alice)
                expected.append("\(answer.headers[.eTag] ?? "") \(answer.headers[.contentLength] ?? "")")
            }
            let first = rawRequest(.get, "/api/notifications/\(id)", as: alice)
            let second = rawRequest(.get, "/api/notifications/\(other)", as: alice)
            let missing = rawRequest(.get, "/api/notifications/999", as: alice)
            let answer = try await rawHTTP(port: session.client.port!, first + second + first + second + missing)
            let answered = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().prefix(4).map { response in
                let head = response.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
                func value(_ name: String) -> String {
                    head.first { $0.lowercased().hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) } ?? ""
                }
                return "\(value("etag")) \(value("content-length"))"
            }
            #expect(answered == expected + expected)
        }
    }

    /// A client that pipelines fetches faster than it reads: answers wait for it instead of piling up in memory.
    @Test func fetchesPipelinedPastWhatTheConnectionTakesGoToTheRouter() async throws {
        let png = try await noisePNG()
        try await withImageNotification(png: png) { session, alice, id in
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let before = try await fetches(session, path: "memory")
            let fetch = rawRequest(.get, "/api/notifications/\(id)", as: alice)
            let missing = rawRequest(.get, "/api/notifications/999", as: alice)
            let answer = try await rawHTTP(port: session.client.port!, String(repeating: fetch, count: 3) + missing)
            let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
            #expect(statuses == Array(repeating: "200", count: 3) + ["404"])
            let fromMemory = try await fetches(session, path: "memory") - before
            #expect((1..<3).contains(fromMemory), "\(fromMemory) of 3 answered from memory")
        }
    }

    /// A `GET` fetch is read in front of the decoder, a `HEAD` behind it.
    @Test(arguments: [HTTPRequest.Method.head, .get])
    func pipelinedRequestsAreAnsweredInTheirOrder(fetchMethod: HTTPRequest.Method) async throws {
        try await withImageNotification { session, alice, id in
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let fetch = rawRequest(fetchMethod, "/api/notifications/\(id)", as: alice)
            let routed = rawRequest(.get, "/api/users/me", as: alice)
            let missing = rawRequest(.get, "/api/notifications/999", as: alice)
            let answer = try await rawHTTP(port: session.client.port!, fetch + routed + fetch + missing)
            let responses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(responses.map { $0.prefix(3) } == ["200", "200", "200", "404"])
            #expect(responses.map { $0.contains("Content-Type: image/png") } == [true, false, true, false])
            #expect(Array(responses)[1].hasSuffix(#"{"role":"member","username":"alice"}"#))
        }
    }

    /// Nothing of the notification is in memory before its first fetch: the router answers it, and the fetches sent
    /// behind it wait for its answer.
    @Test func fetchesPipelinedBehindOneTheRouterAnswersAreEachAnsweredOnce() async throws {
        try await withImageNotification { session, alice, id in
            let fetch = rawRequest(.get, "/api/notifications/\(id)", as: alice)
            let missing = rawRequest(.get, "/api/notifications/999", as: alice)
            let answer = try await rawHTTP(port: session.client.port!, fetch + fetch + fetch + missing)
            let responses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(responses.map { $0.prefix(3) } == ["200", "200", "200", "404"])
            #expect(responses.map { $0.contains("Content-Type: image/png") } == [true, true, true, false])
        }
    }

    /// A device's connection, kept between pushes: each fetch sent once the answer before it arrived.
    @Test(.timeLimit(.minutes(1))) func fetchesInTurnOnAKeptConnectionAreEachAnsweredFromMemory() async throws {
        try await withImageNotification { session, alice, id in
            _ = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let before = try await fetches(session, path: "memory")
            let fetch = rawRequest(.get, "/api/notifications/\(id)", as: alice)
            let answers = try await rawHTTPInTurn(port: session.client.port!, Array(repeating: fetch, count: 3))
            #expect(answers.map { $0.hasPrefix("HTTP/1.1 200 OK\r\n") && $0.contains("IHDR") } == [true, true, true])
            #expect(try await fetches(session, path: "memory") == before + 3)
        }
    }

    /// Fetched this often, an image's whole answer goes from one file made for the second, head and image together:
    /// every answer is the same but for its date.
    @Test(.timeLimit(.minutes(1))) func anImageFetchedAgainAndAgainIsTheSameAnswerEveryTime() async throws {
        try await withImageNotification { session, alice, id in
            let routed = try await session.request(.get, "/api/notifications/\(id)", as: alice)
            let fetch = rawRequest(.get, "/api/notifications/\(id)", as: alice)
            // Eight fetches within two seconds: one of them has at least four, past the asks that make the file.
            let answers = try await rawHTTPInTurn(port: session.client.port!, Array(repeating: fetch, count: 8))
            let undated = answers.map { $0.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Date: ") } }
            #expect(answers.count == 8)
            #expect(Set(undated).count == 1)
            #expect(answers.allSatisfy { $0.hasSuffix(String(buffer: routed.body)) })
            #expect(answers.allSatisfy { $0.contains("\r\nETag: \(routed.headers[.eTag] ?? "?")\r\n") })
        }
    }
}
