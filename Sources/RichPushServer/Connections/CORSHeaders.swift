import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Cross-origin answers for the origins of `--cors-origins`, on every answer whoever wrote it (the router, the
/// payload and stream fast paths, the framework's refusals), so a page of such an origin reads the API's answers
/// and errors and opens the stream with credentials (the Fetch standard's CORS protocol).
///
/// A preflight (`OPTIONS` with `Access-Control-Request-Method`) of a routed path is answered `204` by the router; here
/// it gains the methods, the headers asked for and how long the browser may remember it. An answer to an origin not
/// on the list carries none of these headers, and the browser keeps it from the page.
final class CORSHeaders: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let allowCredentials = HTTPField.Name("Access-Control-Allow-Credentials")!
    static let allowMethods = HTTPField.Name("Access-Control-Allow-Methods")!
    static let allowHeaders = HTTPField.Name("Access-Control-Allow-Headers")!
    static let exposeHeaders = HTTPField.Name("Access-Control-Expose-Headers")!
    static let maxAge = HTTPField.Name("Access-Control-Max-Age")!
    static let requestMethod = HTTPField.Name("Access-Control-Request-Method")!
    static let requestHeaders = HTTPField.Name("Access-Control-Request-Headers")!
    /// What a page may read of an answer beyond the CORS-safelisted headers.
    static let exposed = "Location, ETag, Retry-After, Content-Range, Allow, WWW-Authenticate, X-Richpush-CSRF"

    /// What the answer to one request needs to know of it, in the order requests came on the connection.
    private struct Asked {
        let origin: String
        /// The headers a preflight asks for; nil for a request that is no preflight.
        let preflightHeaders: String?
    }

    private let policy: CORSPolicy
    /// One entry per request whose answer has not begun; nil for a request from no allowed origin.
    private var asked = CircularBuffer<Asked?>()

    init(policy: CORSPolicy) {
        self.policy = policy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            asked.append(
                head.headerFields[.origin].flatMap { origin in
                    guard policy.allows(origin) else { return nil }
                    let isPreflight = head.method == .options && head.headerFields[Self.requestMethod] != nil
                    return Asked(origin: origin, preflightHeaders: isPreflight ? head.headerFields[Self.requestHeaders] ?? "" : nil)
                })
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), head.status.kind != .informational, !asked.isEmpty else {
            context.write(data, promise: promise)
            return
        }
        guard let request = asked.removeFirst() else {
            context.write(data, promise: promise)
            return
        }
        head.headerFields[Self.allowOrigin] = request.origin
        head.headerFields[Self.allowCredentials] = "true"
        head.headerFields.append(HTTPField(name: .vary, value: "Origin"))
        if let preflightHeaders = request.preflightHeaders, head.status == .noContent {
            head.headerFields[Self.allowMethods] = head.headerFields[.allow]
            if !preflightHeaders.isEmpty { head.headerFields[Self.allowHeaders] = preflightHeaders }
            head.headerFields[Self.maxAge] = "600"
        } else {
            head.headerFields[Self.exposeHeaders] = Self.exposed
        }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
