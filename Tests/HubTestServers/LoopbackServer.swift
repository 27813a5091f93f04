import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import NIOCore
public import NIOSSL
import ServiceLifecycle

/// The request context of the loopback hubs: it tells whether the request came over HTTP/2, as APNs requires.
public struct LoopbackContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// An HTTP/2 request arrives on a stream channel whose parent is the connection; an HTTP/1 request on the
    /// connection itself, whose parent is the listening socket.
    public let isHTTP2: Bool

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.isHTTP2 = source.channel.parent?.parent != nil
    }

    public var maxUploadSize: Int { 1024 * 1024 }
}

/// A Hummingbird server on a free loopback port, running until ``stop()``.
///
/// It stops by a graceful shutdown, never by cancelling its task: a cancelled HTTP/2 server drops a stream a client
/// opens in that moment without closing it, and NIO traps on the dropped stream's writer ("Deinited NIOAsyncWriter
/// without calling finish()"), which ended a whole test process.
public final class LoopbackServer: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts `router` on 127.0.0.1: over TLS with HTTP/2 when `tls` is given, plain HTTP/1.1 otherwise.
    public static func start(_ router: Router<LoopbackContext>, tls: TLSConfiguration? = nil) async throws -> LoopbackServer {
        var logger = Logger(label: "richpush.loopback-hub")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server: HTTPServerBuilder = try tls.map { try .http2Upgrade(tlsConfiguration: $0) } ?? .http1()
        let app = Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            await group.triggerGracefulShutdown()
            throw CancellationError()
        }
        return LoopbackServer(port: port, group: group, task: task)
    }

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Stops the server, waiting at most ten seconds: a graceful shutdown waits for its clients' connections to close,
    /// and a client that keeps one open must not hold the test that stops the server forever (the server is then left
    /// to end with its connections).
    public func stop() async {
        await group.triggerGracefulShutdown()
        // Awaiting a task's result ignores cancellation: whichever of the two comes first resumes the wait.
        let resumed = NIOLockedValueBox(false)
        await withCheckedContinuation { (stopped: CheckedContinuation<Void, Never>) in
            let resumeOnce: @Sendable () -> Void = {
                if resumed.withLockedValue({ resumed in
                    defer { resumed = true }; return !resumed
                }) {
                    stopped.resume()
                }
            }
            Task { [task] in
                _ = await task.result
                resumeOnce()
            }
            Task {
                try? await Task.sleep(for: .seconds(10))
                resumeOnce()
            }
        }
    }
}
