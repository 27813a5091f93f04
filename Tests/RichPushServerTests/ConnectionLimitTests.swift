import Foundation
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import RichPushCore
import Testing

@testable import RichPushServer

/// What one client can hold of a gateway: connections, streams, and what every answer tells a browser.
@Suite("Connection limits")
struct ConnectionLimitTests {
    /// Nothing else would close the connection for ten minutes, so its closing within one shows the header timeout
    /// at work; when exactly it falls is RequestDeadlinesTests' to say, on an injected clock, not a busy machine's.
    @Test func aConnectionThatSendsHalfAHeaderIsClosedAfterTheHeaderTimeout() async throws {
        try await TestGateway({
            $0.headerTimeout = .milliseconds(300)
            $0.idleTimeout = .seconds(600)
        }).run(.live) { session in
            let connection = try await openConnection(port: session.client.port!)
            try await connection.writeAndFlush(ByteBuffer(string: "GET /api/users/me HTTP/1.1\r\nHost: gate"))
            #expect(await closes(connection, within: .seconds(60)))
        }
    }

    @Test func connectionsThatNeverSignInAreCappedPerAddressUntilOneSignsIn() async throws {
        try await TestGateway({ $0.maximumUnauthenticatedConnectionsPerAddress = 3 }).run(.live) { session in
            let port = session.client.port!
            var held: [any Channel] = []
            for _ in 0..<3 { held.append(try await openConnection(port: port)) }
            let refused = try await openConnection(port: port)
            #expect(await closes(refused, within: .seconds(10)))

            // A request with valid credentials on one of the three frees its place.
            let signIn = "GET /api/users/me HTTP/1.1\r\nHost: gateway\r\nAuthorization: \(Credentials.admin.authorization)\r\n\r\n"
            let answered = try await send(signIn, on: held[0])
            #expect(answered.hasPrefix("HTTP/1.1 200"))
            let admitted = try await openConnection(port: port)
            let health = try await send("GET /health HTTP/1.1\r\nHost: gateway\r\n\r\n", on: admitted)
            #expect(health.hasPrefix("HTTP/1.1 200"))
            for connection in held + [admitted] { try? await connection.close() }
        }
    }

    @Test func aUsersNewStreamBeyondTheLimitClosesItsOldest() async throws {
        try await TestGateway({ $0.maximumStreamsPerUser = 2 }).run(.live) { session in
            let alice = try await session.createUser("alice")
            try await session.register("laptop", of: alice)
            let port = session.client.port!
            let query = "?installationId=laptop"
            let oldest = StreamClient(port: port, user: alice, query: query)
            try await oldest.waitUntilOpen()
            let middle = StreamClient(port: port, user: alice, query: query)
            try await middle.waitUntilOpen()
            let newest = StreamClient(port: port, user: alice, query: query)
            try await newest.waitUntilOpen()
            #expect(await oldest.next() == nil)
            #expect(oldest.hasEnded)
            _ = try await session.send(#"{"message":"m","richType":"text","text":"x","audience":"username:alice"}"#, as: .admin)
            #expect(await middle.next()?.event == "rich")
            #expect(await newest.next()?.event == "rich")
            middle.close()
            newest.close()
        }
    }

    @Test func everyAnswerTellsBrowsersNotToSniffAndWhereThePageMayLoadFrom() async throws {
        try await TestGateway().run(.live) { session in
            for path in ["/", "/console/app.js", "/health", "/api/users/me", "/no/such/path"] {
                let response = try await session.request(.get, path)
                #expect(response.headers[SecurityHeaders.contentTypeOptions] == "nosniff", "\(path)")
                #expect(response.headers[SecurityHeaders.contentSecurityPolicy] == "default-src 'self'; frame-ancestors 'none'", "\(path)")
            }
        }
    }

    @Test(arguments: ["/index.html%00.png", "/index.html%00", "/console/app.js%0a", "/%ZZ"])
    func aPathWithAnEscapedControlCharacterIsRefusedNotServedAsAFile(path: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, path)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "request.invalidPath")
        }
    }

    @Test func theDataDirectoryAndItsDatabaseAreTheOwnersAlone() async throws {
        let gateway = TestGateway()
        try await gateway.run { session in
            try await session.createUser("alice")
            let files = FileManager.default
            let directory = try files.attributesOfItem(atPath: gateway.directory.path)[.posixPermissions] as? Int
            #expect(directory == 0o700)
            let names = try files.contentsOfDirectory(atPath: gateway.directory.path)
            #expect(names.contains("richpush.sqlite"))
            for name in names {
                let mode = try files.attributesOfItem(atPath: gateway.directory.appendingPathComponent(name).path)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(name)")
            }
        }
    }

    /// Sends `request` on an open connection and returns the start of the answer.
    private func send(_ request: String, on connection: any Channel) async throws -> String {
        let answer = AnswerCollector()
        let promise = connection.eventLoop.makePromise(of: String.self)
        answer.promise = promise
        try await connection.pipeline.addHandler(answer)
        try await connection.writeAndFlush(ByteBuffer(string: request))
        return try await promise.futureResult.get()
    }
}

/// Hands on the first bytes a raw connection receives.
private final class AnswerCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    var promise: EventLoopPromise<String>?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        promise?.succeed(String(buffer: unwrapInboundIn(data)))
        promise = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(ChannelError.eof)
        promise = nil
    }
}
