import NIOCore
import NIOEmbedded
import NIOTLS
import Testing

@testable import RichPushServer

/// A TLS connection whose handshake never finishes is closed; one that finishes is left to the HTTP deadlines.
@Suite("The TLS handshake deadline")
struct HandshakeDeadlineTests {
    func connectedChannel() throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: HandshakeDeadline(timeout: .seconds(10)), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop)
    }

    @Test func aHandshakeUnfinishedTenSecondsAfterTheConnectionClosesIt() throws {
        let (channel, loop) = try connectedChannel()
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func aFinishedHandshakeKeepsTheConnectionAndTheDeadlineLeaves() throws {
        let (channel, loop) = try connectedChannel()
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "h2"))
        loop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: HandshakeDeadline.self) }
    }
}
