import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOSSL
import RichPushCore
import Tracing

/// Answers payload fetches (`GET`/`HEAD /api/notifications/{id}`) on the event loop, straight from memory, when
/// everything the answer depends on is cached; every other request goes on to the router untouched.
///
/// The payload fetch is the request every device makes after every push. Through the router it costs a hop into
/// Swift concurrency and back, a request context, the middleware chain and a response writer; here it costs a few
/// dictionary lookups. The router still answers the first fetch (which fills the caches), every refusal, and any
/// fetch on a connection with a routed request in flight, so HTTP/1.1 pipelined answers keep their order.
final class PayloadFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let replies: MemoryPayloadReplies
    private let connections: UnauthenticatedConnections
    /// Requests handed to the router whose response has not ended yet.
    private var routedInFlight = 0
    /// The rest of a request this handler answered: its body and end are dropped.
    private var answeredRequestOpen = false
    private var needsFlush = false
    /// Whether this connection was reported signed in to ``UnauthenticatedConnections``.
    private var signedIn = false
    private var wire: PlainWire?
    private var wireLookedUp = false
    /// Whether TCP_CORK holds this connection's segments until the flush ends, so a head written before its file
    /// leaves in the file's first segment instead of a packet of its own (nginx's `tcp_nopush`).
    private var corked = false

    init(replies: MemoryPayloadReplies, connections: UnauthenticatedConnections) {
        self.replies = replies
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            // A connection that cannot take more (its client pipelines and does not read) goes to the router, whose
            // writer waits for it.
            if routedInFlight == 0, context.channel.isWritable, let reply = reply(to: head) {
                if !signedIn {
                    signedIn = true
                    connections.signedIn(ObjectIdentifier(connectionOf: context.channel))
                }
                answeredRequestOpen = true
                write(reply, context: context)
                return
            }
            routedInFlight += 1
        case .body, .end:
            if answeredRequestOpen {
                if case .end = part { answeredRequestOpen = false }
                return
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
            if corked {
                corked = false
                try? context.channel.syncOptions?.setOption(Self.cork, value: 0)
            }
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routedInFlight = max(0, routedInFlight - 1) }
        context.write(data, promise: promise)
    }

    private func reply(to head: HTTPRequest) -> PayloadReply? {
        // A request that closes the connection or carries a body is the router's: it knows how to end both.
        guard head.method == .get || head.method == .head, let path = head.path, let target = Self.payloadTarget(in: path),
            let authorization = head.headerFields[.authorization],
            head.headerFields[.connection].map({ $0.lowercased() == "keep-alive" }) ?? true,
            head.headerFields[.contentLength].map({ $0 == "0" }) ?? true, head.headerFields[.transferEncoding] == nil
        else { return nil }
        // The hottest path reads no clock for a span unless traces are recorded.
        let started = GatewayTracing.isOn ? DefaultTracerClock.now : nil
        let reply = replies.reply(
            id: target.id, installationId: target.installationId, authorization: authorization, method: head.method,
            requestHeaders: head.headerFields)
        if let started, let reply {
            // The span the router's tracing middleware makes of the fetches it answers.
            let span = startSpan("/api/notifications/{id}", context: .topLevel, ofKind: .server, at: started)
            span.attributes["http.request.method"] = head.method.rawValue
            span.attributes["http.route"] = "/api/notifications/{id}"
            span.attributes["http.response.status_code"] = reply.status.code
            span.attributes["richpush.notification.id"] = target.id
            span.end()
        }
        return reply
    }

    private func write(_ reply: PayloadReply, context: ChannelHandlerContext) {
        needsFlush = true
        if let file = reply.file, let wire = plainWire(context), let region = file.image.region(file.range, on: context.eventLoop) {
            // The answer in NIOHTTP1's parts, straight to its encoder: the HTTP handlers above would only convert the
            // head twice and could not carry a file. The encoder must see every answer, since it pairs each with its
            // request's method (the body of an answer to a HEAD is left out). The write holds the file open until
            // it is sent.
            var headers = reply.http1Headers ?? HTTPHeaders(reply.headers)
            headers.add(name: "Date", value: HTTPDate.now)
            headers.add(name: "Server", value: Self.server)
            if !corked {
                corked = (try? context.channel.syncOptions?.setOption(Self.cork, value: 1)) != nil
            }
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.whenComplete { _ in withExtendedLifetime(file) {} }
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status.code), headers: headers)
            wire.encoder.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
            wire.encoder.write(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))), promise: sent)
            wire.encoder.write(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            wire.deadlines.answeredBelow()
            return
        }
        var headers = reply.headers
        headers[.date] = HTTPDate.now
        headers[.server] = Self.server
        context.write(wrapOutboundOut(.head(HTTPResponse(status: reply.status, headerFields: headers))), promise: nil)
        if let body = reply.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private static let server = "richpush"
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_CORK))

    /// Where a plain HTTP/1.1 connection's answers enter NIOHTTP1's encoder (the context of the HTTP types codec
    /// above it), and the connection's deadlines, which an answer written there does not pass.
    private struct PlainWire {
        let encoder: ChannelHandlerContext
        let deadlines: RequestDeadlines
    }

    /// The connection's ``PlainWire``; nil over TLS (which cannot send a file), on HTTP/2 streams, and where CORS
    /// headers are added to answers.
    private func plainWire(_ context: ChannelHandlerContext) -> PlainWire? {
        if let wire { return wire }
        guard !wireLookedUp else { return nil }
        wireLookedUp = true
        let pipeline = context.pipeline.syncOperations
        guard (try? pipeline.handler(type: NIOSSLServerHandler.self)) == nil, (try? pipeline.handler(type: CORSHeaders.self)) == nil,
            let encoder = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self),
            let deadlines = try? pipeline.handler(type: RequestDeadlines.self)
        else { return nil }
        wire = PlainWire(encoder: encoder, deadlines: deadlines)
        return wire
    }

    /// The id in exactly `/api/notifications/<id>`, and the installation of `?installationId=<id>` when that is its
    /// whole query; anything else (another query, a longer path) is the router's.
    static func payloadTarget(in path: String) -> (id: Int64, installationId: String?)? {
        let prefix = "/api/notifications/"
        guard path.hasPrefix(prefix) else { return nil }
        var target = path.utf8.dropFirst(prefix.utf8.count)
        var installationId: String?
        if let question = target.firstIndex(of: UInt8(ascii: "?")) {
            let query = target[target.index(after: question)...]
            let key = "installationId=".utf8
            guard query.starts(with: key) else { return nil }
            let name = Substring(query.dropFirst(key.count))
            guard Identifier.isValid(name) else { return nil }
            installationId = String(name)
            target = target[..<question]
        }
        guard (1...18).contains(target.count), target.first != UInt8(ascii: "0"),
            target.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let id = Int64(Substring(target))
        else { return nil }
        return (id, installationId)
    }
}
