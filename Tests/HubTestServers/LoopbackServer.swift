import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import NIOCore
public import NIOSSL

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
public final class LoopbackServer: Sendable {
    public let port: Int
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
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return LoopbackServer(port: port, task: task)
    }

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    /// Stops the server, waiting at most ten seconds: a graceful shutdown waits for its clients' connections to close,
    /// and a client that keeps one open must not hold the test that stops the server forever.
    public func stop() async {
        task.cancel()
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
