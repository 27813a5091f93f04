import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import RichPushCore

/// Carries open streams (`GET /api/me/stream`) on their connections, so an idle stream holds no task of the
/// framework's.
///
/// Through the router a stream is a response body written from the connection's task, which keeps the memory of the
/// deepest call the connection ever made (the middleware chain, the responder, the body writer), about 30 KiB, for as
/// long as the stream is open. Here it costs its connection, its subscription and one shallow task that sleeps
/// between events. The router still opens a stream whose caller's credentials are not in memory (it verifies them,
/// and the next stream is this path's), and answers every refusal: a request this path cannot open goes on to it
/// untouched.
final class StreamFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        case idle
        /// A stream request is being checked; its parts wait, in case the router must answer it after all.
        case opening(request: [HTTPRequestPart])
        case streaming(Open)
    }

    /// An open stream: whose, where it is, and whether a task is writing its events now.
    private struct Open {
        var caller: AuthenticatedUser
        var installationId: String?
        var cursor: Int64
        var subscription: UInt64
        var signal: StreamSignal
        var catchingUp = false
    }

    private let stream: DirectStream
    private let authenticator: Authenticator
    private let connections: UnauthenticatedConnections
    private var state = State.idle
    /// Requests handed on whose response has not ended: a stream is opened only when none is, so answers keep their
    /// order on the connection.
    private var routedInFlight = 0
    /// The stream request's own parts still to come after its head; dropped once the stream is open.
    private var streamRequestOpen = false
    /// Parts of later requests that came while a stream was opening or open; handed on when it ends.
    private var held: [HTTPRequestPart] = []
    private var context: ChannelHandlerContext?

    init(stream: DirectStream, authenticator: Authenticator, connections: UnauthenticatedConnections) {
        self.stream = stream
        self.authenticator = authenticator
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if streamRequestOpen {
            if case .end = part { streamRequestOpen = false }
            if case .opening(var request) = state {
                request.append(part)
                state = .opening(request: request)
            }
            return
        }
        guard case .idle = state else {
            held.append(part)
            return
        }
        if case .head(let head) = part, routedInFlight == 0, let authorization = streamAuthorization(head) {
            open(head, authorization: authorization, context: context)
            return
        }
        if case .head = part { routedInFlight += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routedInFlight = max(0, routedInFlight - 1) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .streaming(let open) = state { open.signal.close() }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A server shutting down gracefully asks its connections to finish, and the server's own handler closes one it
        // thinks idle as soon as the request reaches it: this stream's request never reached it, so the stream's
        // answer ends here first. Ended later, from its wake-up, the client saw it cut off ("transfer closed with
        // outstanding read data remaining").
        if event is ChannelShouldQuiesceEvent, case .streaming = state { end() }
        context.fireUserInboundEventTriggered(event)
    }

    /// The `Authorization` of a stream request whose caller memory knows, or may recheck without a password hash;
    /// nil for anything else.
    private func streamAuthorization(_ head: HTTPRequest) -> String? {
        guard head.method == .get, let path = head.path, path == "/api/me/stream" || path.hasPrefix("/api/me/stream?"),
            let authorization = head.headerFields[.authorization], authenticator.remembers(authorization: authorization),
            head.headerFields[.contentLength].map({ $0 == "0" }) ?? true, head.headerFields[.transferEncoding] == nil
        else { return nil }
        return authorization
    }

    /// Checks the caller and the request off the event loop, then opens the stream, or hands the request to the
    /// router to answer.
    private func open(_ head: HTTPRequest, authorization: String, context: ChannelHandlerContext) {
        state = .opening(request: [.head(head)])
        streamRequestOpen = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let lastEventId = head.headerFields[DirectStream.lastEventId]
        let uri = URI(head.path ?? "")
        Task { [stream, authenticator] in
            do {
                guard let caller = try await authenticator.rememberedCaller(authorization: authorization) else {
                    throw APIError.unauthorized("The credentials changed.")
                }
                let (installationId, cursor) = try await stream.opening(uri, lastEventId: lastEventId, caller: caller)
                handler.eventLoop.execute { handler.value.start(caller, installationId: installationId, cursor: cursor) }
            } catch {
                handler.eventLoop.execute { handler.value.handOnToTheRouter() }
            }
        }
    }

    /// Answers the stream's head and its first bytes, then writes its events as its signal wakes it.
    private func start(_ caller: AuthenticatedUser, installationId: String?, cursor: Int64) {
        guard let context, context.channel.isActive else {
            state = .idle
            return
        }
        connections.signedIn(ObjectIdentifier(connectionOf: context.channel))
        var headers = DirectStream.headers
        headers[.date] = HTTPDate.now
        headers[.server] = PayloadReply.server
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.body(DirectStream.preamble)), promise: nil)
        let (subscription, signal) = stream.subscribe(caller.username)
        state = .streaming(Open(caller: caller, installationId: installationId, cursor: cursor, subscription: subscription, signal: signal))
        catchUp()
    }

    /// Takes what woke the stream, on the event loop: the events after its cursor are written by a task that ends when
    /// they are; between wakes nothing of the stream runs.
    private func wake() {
        guard case .streaming(let open) = state, !open.catchingUp, let context else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        guard let wake = open.signal.next(orWhenReady: { handler.eventLoop.execute { handler.value.wake() } }) else { return }
        switch wake {
        case .events: catchUp()
        case .heartbeat:
            context.writeAndFlush(wrapOutboundOut(.body(DirectStream.heartbeat)), promise: nil)
            self.wake()
        case .closed: end()
        }
    }

    private func catchUp() {
        guard case .streaming(var open) = state, let context else { return }
        open.catchingUp = true
        state = .streaming(open)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        Task { [stream, open] in
            let cursor = try? await stream.catchUp(username: open.caller.username, installationId: open.installationId, from: open.cursor) {
                bytes in try await handler.eventLoop.flatSubmit { handler.value.writeEvents(bytes, on: handler.eventLoop) }.get()
            }
            handler.eventLoop.execute { handler.value.caughtUp(to: cursor) }
        }
    }

    /// A catching-up task is done: at `cursor`, or failed (the client left, the store failed), which ends the stream.
    private func caughtUp(to cursor: Int64?) {
        guard case .streaming(var open) = state else { return }
        guard let cursor else {
            end()
            return
        }
        open.cursor = cursor
        open.catchingUp = false
        state = .streaming(open)
        wake()
    }

    private func writeEvents(_ bytes: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        // A stream that ended meanwhile (its answer's end written) takes no more events.
        guard case .streaming = state, let context, context.channel.isActive else {
            return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        return context.writeAndFlush(wrapOutboundOut(.body(bytes)))
    }

    /// Ends the stream's answer and hands on what the client sent after it.
    private func end() {
        guard case .streaming(let open) = state else { return }
        open.signal.close()
        stream.unsubscribe(open.caller.username, id: open.subscription)
        if let context, context.channel.isActive { context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil) }
        resumeIdle()
    }

    /// The stream could not open here: the router answers its request, refusal or stream, as it answers any.
    private func handOnToTheRouter() {
        guard case .opening(let request) = state, let context else { return }
        state = .idle
        streamRequestOpen = false
        routedInFlight += 1
        for part in request { context.fireChannelRead(wrapInboundOut(part)) }
        context.fireChannelReadComplete()
        resumeIdle()
    }

    private func resumeIdle() {
        state = .idle
        guard let context, !held.isEmpty else { return }
        let parts = held
        held = []
        for part in parts { channelRead(context: context, data: wrapInboundOut(part)) }
        context.fireChannelReadComplete()
    }
}
