import Foundation
import HubTestServers
import NIOCore
import NIOHPACK
import NIOHTTP1
import TestSupport
import Testing

@testable import RichPushHubs

@Suite("The HTTP/2 connection to a hub")
struct HTTP2SessionTests {
    /// Runs `body` with a scripted server and a session to it.
    func withServer(
        _ behaviour: ScriptedHTTP2Server.Behaviour, applicationProtocols: [String] = ["h2"], maximumConcurrentStreams: Int = 256,
        maximumConnections: Int = 1, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        _ body: (HTTP2Session, ScriptedHTTP2Server) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let authority = try TestCertificateAuthority(directory: scratch.url)
        let server = try await ScriptedHTTP2Server.start(behaviour, authority: authority, applicationProtocols: applicationProtocols)
        let session = try HTTP2Session(
            baseURL: server.endpoint, caFile: authority.caFile, maximumConcurrentStreams: maximumConcurrentStreams,
            maximumConnections: maximumConnections, now: now)
        do {
            try await body(session, server)
        } catch {
            await session.shutdown()
            await server.stop()
            throw error
        }
        await session.shutdown()
        await server.stop()
    }

    func push(_ index: Int) -> HTTP2Request {
        HTTP2Request(
            path: "/3/device/\(String(format: "%064x", index))", headers: [HTTP2Header("apns-topic", "com.example.app")],
            body: ByteBuffer(string: #"{"aps":{"content-available":1},"richId":"\#(index)"}"#))
    }

    /// Sends `count` pushes as one batch and answers their statuses, or the error of each that failed.
    ///
    /// The batch's deadline counts the time its requests wait for a free stream; at the start of the whole suite, when
    /// every test runs at once on two cores, 25 rounds of 8 streams once took longer than 10 s, so only the tests about
    /// timing out give a short one.
    func sendAll(_ count: Int, through session: HTTP2Session, timeout: TimeAmount = .seconds(90)) async -> [Result<Int, any Error>] {
        await session.send((0..<count).map(push), timeout: timeout).map { $0.map(\.status) }
    }

    @Test func aServerThatAnswersBeforeReadingTheBodyAnswersEveryRequest() async throws {
        try await withServer(.answerBeforeBody) { session, server in
            let results = await sendAll(500, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 500))
            #expect(server.answered == 500)
            #expect(server.connections == 1)
        }
    }

    @Test func aBatchLargerThanTheStreamLimitWaitsForFreeStreamsAndIsAnsweredWhole() async throws {
        try await withServer(.answerBeforeBody, maximumConcurrentStreams: 8) { session, server in
            let results = await sendAll(200, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 200))
            #expect(server.answered == 200)
            #expect(server.connections == 1)
        }
    }

    /// Bodies of 16 KB: after the first few the connection's window holds the rest back, and each is answered before
    /// it went. The server ends those streams itself; a client resetting each one too would look like an attack to
    /// the server (NIOHTTP2, as nginx, closes a connection that resets streams by the hundred).
    @Test func requestsAnsweredBeforeTheirBodiesWentAreNotResetByTheClient() async throws {
        try await withServer(.answerBeforeBody) { session, server in
            let requests = (0..<500).map { index in
                HTTP2Request(path: "/3/device/\(index)", headers: [], body: ByteBuffer(repeating: UInt8(ascii: "x"), count: 16 * 1024))
            }
            let answers = await session.send(requests, timeout: .seconds(90))
            #expect(answers.compactMap { try? $0.get().status } == Array(repeating: 200, count: 500))
            #expect(server.resetsReceived == 0)
            #expect(server.connections == 1)
        }
    }

    @Test func bodiesLargerThanTheServersStreamWindowGoOutAsTheWindowOpens() async throws {
        try await withServer(.tinyStreamWindows) { session, server in
            let requests = (0..<20).map(push)
            let answers = await session.send(requests, timeout: .seconds(90))
            #expect(answers.compactMap { try? $0.get().status } == Array(repeating: 200, count: 20))
            #expect(server.bodyBytes == requests.map(\.body.readableBytes).reduce(0, +))
        }
    }

    @Test func aServerThatAllowsOneStreamAtATimeGetsItsRequestsOneAfterAnother() async throws {
        try await withServer(.oneStreamAtATime) { session, server in
            let results = await sendAll(30, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 30))
            #expect(server.connections == 1)
        }
    }

    @Test func anAnswerWhoseHeadersSpanContinuationFramesIsReadWhole() async throws {
        try await withServer(.largeAnswerHeaders) { session, _ in
            let answer = try await session.send([push(1), push(2)], timeout: .seconds(90)).map { try $0.get() }
            #expect(answer.map(\.status) == [429, 429])
            #expect(answer.map { $0.headers.first(name: "x-padding")?.count } == [20_000, 20_000])
            #expect(answer.map { $0.headers.first(name: "apns-id") } == Array(repeating: "00000000-0000-0000-0000-000000000000", count: 2))
        }
    }

    @Test func aPingFromTheServerIsAcknowledged() async throws {
        try await withServer(.pingBeforeAnswering) { session, _ in
            let results = await sendAll(5, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 5))
        }
    }

    @Test func requestsAServerTurnedAwayWithGoAwayAreSentAgainOnANewConnection() async throws {
        try await withServer(.goAwayOnFirstConnection) { session, server in
            let results = await sendAll(60, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 60))
            #expect(server.answered == 60)
            #expect(server.connections == 2)
        }
    }

    @Test func aServerThatNeverAnswersTimesTheRequestOut() async throws {
        try await withServer(.silent) { session, _ in
            let started = ContinuousClock.now
            await #expect(throws: HTTP2TransportError.timedOut) {
                try await session.send([push(1)], timeout: .milliseconds(300))[0].get()
            }
            // Before the 30 s default could run out: the request's own timeout ended it, however long a machine busy with
            // the other tests took to connect (one run under full load took 15.7 s).
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    @Test func aServerWithoutHTTP2IsRefusedAsSuch() async throws {
        try await withServer(.silent, applicationProtocols: ["http/1.1"]) { session, _ in
            await #expect(throws: HTTP2TransportError.notHTTP2(nil)) {
                try await session.send([push(1)], timeout: .seconds(5))[0].get()
            }
        }
    }

    @Test func requestsThatFindEveryStreamTakenOpenAnotherConnectionUpToTheMaximum() async throws {
        try await withServer(.roundTrip(.milliseconds(100), streams: 100), maximumConnections: 4) { session, server in
            let results = await sendAll(1000, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 1000))
            #expect(server.connections == 4)
            #expect(server.mostOpenStreams <= 100, "a connection had more streams open than the server allows")
            #expect(server.streamErrors == 0)
        }
    }

    /// The session allows 1000 streams a connection; the server 10. Once the first connection has heard so, each
    /// connection opened after it is counted at 10 from the start, so a batch is shared out evenly rather than heaped
    /// on a new connection as though it took 1000 (and given back, round after round, when its SETTINGS come).
    @Test func connectionsOpenedAfterTheServerNamedItsStreamLimitAreCountedAtThatLimit() async throws {
        try await withServer(.roundTrip(.milliseconds(5), streams: 10), maximumConcurrentStreams: 1000, maximumConnections: 4) { session, server in
            _ = await sendAll(1, through: session)
            let results = await sendAll(400, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 400))
            #expect(server.answeredByConnection == [101, 100, 100, 100])
            #expect(server.streamErrors == 0)
        }
    }

    @Test func requestsBeyondEveryFreeStreamWaitSpreadEvenlyOverTheConnections() async throws {
        try await withServer(.roundTrip(.milliseconds(50), streams: 100), maximumConcurrentStreams: 100, maximumConnections: 2) { session, server in
            let results = await sendAll(600, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 600))
            #expect(server.answeredByConnection == [300, 300])
        }
    }

    @Test func aBatchTheFreeStreamsOfOneConnectionTakeOpensNoOther() async throws {
        try await withServer(.roundTrip(.milliseconds(20), streams: 1000), maximumConnections: 4) { session, server in
            for _ in 0..<3 { _ = await sendAll(200, through: session) }
            #expect(server.answered == 600)
            #expect(server.connections == 1)
        }
    }

    /// Each connection takes 100 and has a third of the rest waiting when its limit falls to 1; those are sent
    /// again, one stream at a time on each connection.
    @Test func aServerThatLowersItsStreamLimitMidConnectionNeverSeesMoreStreamsThanItAllows() async throws {
        try await withServer(.lowersStreamLimitToOne, maximumConcurrentStreams: 100, maximumConnections: 3) { session, server in
            let results = await sendAll(400, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 400))
            #expect(server.streamErrors == 0, "streams were opened past the limit the server had lowered")
        }
    }

    @Test func aConnectionEndedWithGoAwayMidBatchLosesAndDoublesNoRequest() async throws {
        try await withServer(.goAwayAfterFiftyRequests, maximumConnections: 4) { session, server in
            let results = await sendAll(120, through: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 120))
            #expect(server.answeredPaths.sorted() == (0..<120).map { push($0).path }.sorted())
            #expect(server.connections == 3)
        }
    }

    @Test func aConnectionPastTheFirstIdleForAMinuteIsClosed() async throws {
        let clock = ManualClock()
        let (origin, start) = (ContinuousClock.now, clock.now)
        let now = { @Sendable in origin + start.duration(to: clock.now) }
        try await withServer(.roundTrip(.milliseconds(50), streams: 100), maximumConcurrentStreams: 100, maximumConnections: 3, now: now) {
            session, server in
            _ = await sendAll(300, through: session)
            #expect(server.connections == 3)
            clock.advance(by: .seconds(59))
            session.closeIdleConnections()
            #expect(session.usableConnections == 3)
            clock.advance(by: .seconds(1))
            session.closeIdleConnections()
            #expect(session.usableConnections == 1)
            #expect(await eventually { server.closedConnections == 2 })
            #expect(await sendAll(10, through: session).compactMap { try? $0.get() } == Array(repeating: 200, count: 10))
            #expect(server.connections == 3)
        }
    }
}
