import HTTPTypes
import NIOCore
import RichPushCore
import Tracing

/// Answers payload fetches (`GET`/`HEAD /api/notifications/{id}`) on the event loop, straight from memory, when
/// everything the answer depends on is cached; every other request goes on to the router untouched.
///
/// The payload fetch is the request every device makes after every push. Through the router it costs a hop into
/// Swift concurrency and back, a request context, the middleware chain and a response writer; here it costs a few
/// dictionary lookups. The router still answers the first fetch (which fills the caches), every refusal, and any
/// fetch on a connection with a routed request in flight, so HTTP/1.1 pipelined answers keep their order.
///
/// `Wire` is the form of HTTP it reads and writes where it sits: NIOHTTP1's parts right behind the decoder of a plain
/// HTTP/1.1 connection, HTTP types elsewhere (HTTPS, HTTP/2 streams).
final class PayloadFastPath<Wire: PayloadFetchWire>: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = Wire.RequestPart
    typealias InboundOut = Wire.RequestPart
    typealias OutboundIn = Wire.ResponsePart
    typealias OutboundOut = Wire.ResponsePart

    private let replies: MemoryPayloadReplies
    private let connections: UnauthenticatedConnections
    private var wire: Wire
    /// Requests handed to the router whose response has not ended yet.
    private var routedInFlight = 0
    /// The rest of a request this handler answered: its body and end are dropped.
    private var answeredRequestOpen = false
    private var needsFlush = false
    /// Whether a request part went on to the handlers above since they last saw a read end: when none did, there is
    /// nothing for them to end, and the event does not go through them.
    private var forwardedRead = false
    /// Whether this connection was reported signed in to ``UnauthenticatedConnections``.
    private var signedIn = false

    init(replies: MemoryPayloadReplies, connections: UnauthenticatedConnections, wire: Wire) {
        self.replies = replies
        self.connections = connections
        self.wire = wire
    }

    @_specialize(where Wire == HTTP1PayloadWire)
    @_specialize(where Wire == HTTPTypesPayloadWire)
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let kind = Wire.kind(of: unwrapInboundIn(data))
        switch kind {
        case .head(let fetch):
            if let fetch, answered(fetch, context: context) {
                answeredRequestOpen = true
                return
            }
            routedInFlight += 1
        case .body, .end:
            if answeredRequestOpen {
                if case .end = kind { answeredRequestOpen = false }
                return
            }
        }
        forwardedRead = true
        context.fireChannelRead(data)
    }

    /// Writes the answer to `fetch`, unflushed, when memory holds it and no routed answer is ahead of it; false when
    /// the router is to answer.
    func answered(_ fetch: FastPathFetch, context: ChannelHandlerContext) -> Bool {
        // A connection that cannot take more (its client pipelines and does not read) goes to the router, whose
        // writer waits for it.
        guard routedInFlight == 0, context.channel.isWritable, let reply = reply(to: fetch) else { return false }
        if !signedIn {
            signedIn = true
            connections.signedIn(ObjectIdentifier(connectionOf: context.channel))
        }
        needsFlush = true
        wire.write(reply, context: context)
        return true
    }

    /// Whether every request handed to the router has been answered.
    var routesNothing: Bool { routedInFlight == 0 }

    /// Flushes the answers written since the last read ended.
    func flushAnswers(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        context.flush()
        wire.flushed(context: context)
    }

    @_specialize(where Wire == HTTP1PayloadWire)
    @_specialize(where Wire == HTTPTypesPayloadWire)
    func channelReadComplete(context: ChannelHandlerContext) {
        flushAnswers(context: context)
        if forwardedRead {
            forwardedRead = false
            context.fireChannelReadComplete()
        }
    }

    @_specialize(where Wire == HTTP1PayloadWire)
    @_specialize(where Wire == HTTPTypesPayloadWire)
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if Wire.isEnd(unwrapOutboundIn(data)) { routedInFlight = max(0, routedInFlight - 1) }
        context.write(data, promise: promise)
    }

    private func reply(to fetch: FastPathFetch) -> PayloadReply? {
        // The hottest path reads no clock for a span unless traces are recorded.
        let started = GatewayTracing.isOn ? DefaultTracerClock.now : nil
        let reply = replies.reply(
            id: fetch.id, installationId: fetch.installationId, authorization: fetch.authorization, method: fetch.method,
            conditions: fetch.conditions)
        if let started, let reply {
            // The span the router's tracing middleware makes of the fetches it answers.
            let span = startSpan("/api/notifications/{id}", context: .topLevel, ofKind: .server, at: started)
            span.attributes["http.request.method"] = fetch.method.rawValue
            span.attributes["http.route"] = "/api/notifications/{id}"
            span.attributes["http.response.status_code"] = reply.status.code
            span.attributes["richpush.notification.id"] = fetch.id
            span.end()
        }
        return reply
    }
}

/// What a fast path reads and writes, in the form of HTTP it sits among.
protocol PayloadFetchWire {
    associatedtype RequestPart
    associatedtype ResponsePart

    /// A request's head with the fetch it asks for (nil when it is not one the fast path may answer), its body or
    /// its end.
    static func kind(of part: RequestPart) -> RequestPartKind
    /// Whether `part` ends a response.
    static func isEnd(_ part: ResponsePart) -> Bool
    /// Writes the whole answer, unflushed.
    mutating func write(_ reply: PayloadReply, context: ChannelHandlerContext)
    /// What was written was flushed.
    mutating func flushed(context: ChannelHandlerContext)
}

enum RequestPartKind {
    case head(FastPathFetch?)
    case body
    case end
}

/// A payload fetch a fast path may answer: `GET` or `HEAD` of exactly `/api/notifications/<id>` (with
/// `?installationId=<id>` as its whole query, or none), with `Authorization`, no body, keeping its connection.
/// A request that closes the connection or carries a body is the router's: it knows how to end both.
struct FastPathFetch {
    var id: Int64
    var installationId: String?
    var authorization: String
    var method: HTTPRequest.Method
    var conditions: FetchConditions

    init?(
        method: HTTPRequest.Method, target: some Collection<UInt8>, authorization: String?, keepsConnection: Bool,
        hasBody: Bool, conditions: () -> FetchConditions
    ) {
        guard method == .get || method == .head, keepsConnection, !hasBody, let authorization,
            let (id, installationId) = Self.payloadTarget(in: target)
        else { return nil }
        self.id = id
        self.installationId = installationId
        self.authorization = authorization
        self.method = method
        self.conditions = conditions()
    }

    /// The id in exactly `/api/notifications/<id>`, and the installation of `?installationId=<id>` when that is its
    /// whole query; anything else (another query, a longer path) is the router's. `path` is the request target's
    /// bytes.
    static func payloadTarget(in path: some Collection<UInt8>) -> (id: Int64, installationId: String?)? {
        let prefix = "/api/notifications/".utf8
        guard path.starts(with: prefix) else { return nil }
        var target = path.dropFirst(prefix.count)
        var installationId: String?
        if let question = target.firstIndex(of: UInt8(ascii: "?")) {
            let query = target[target.index(after: question)...]
            let key = "installationId=".utf8
            guard query.starts(with: key) else { return nil }
            let name = String(decoding: query.dropFirst(key.count), as: UTF8.self)
            guard Identifier.isValid(name) else { return nil }
            installationId = name
            target = target[..<question]
        }
        guard (1...18).contains(target.count), target.first != UInt8(ascii: "0"),
            target.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        // At most 18 digits: no overflow.
        return (target.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }, installationId)
    }
}
