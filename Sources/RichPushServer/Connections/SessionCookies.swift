import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Turns a browser session's cookie into the token it holds, before anything reads the request: the router, the
/// payload fast path and the stream fast path then authenticate it as `Authorization: Bearer`, so `fetch` and
/// `EventSource` with credentials work wherever an API token does.
///
/// A request that changes something with the cookie alone must also carry the session's `X-Richpush-CSRF`;
/// without it the request goes on as `Authorization: Session-Unconfirmed`, which the authenticator refuses with a
/// 403 saying so. A request that names its own `Authorization` is left as it is.
final class SessionCookies: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// The scheme of a cookie request that changes something without its CSRF value.
    static let unconfirmedScheme = "Session-Unconfirmed"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.headerFields.contains(.authorization),
            let token = SessionCookie.token(in: head.headerFields[.cookie])
        else {
            context.fireChannelRead(data)
            return
        }
        let confirmed = !SessionCookie.changesState(head.method) || head.headerFields[SessionCookie.csrfHeader] == SessionCookie.csrf(for: token)
        head.headerFields[.authorization] = confirmed ? "Bearer \(token)" : Self.unconfirmedScheme
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
