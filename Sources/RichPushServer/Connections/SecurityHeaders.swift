import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Puts the headers every answer carries on every answer, whoever wrote it (the router, the payload fast path, the
/// framework's own refusals): `X-Content-Type-Options: nosniff`, so no browser runs an answer as something it is
/// not, and a `Content-Security-Policy` that lets the console load only its own files and no page frame it. Over
/// HTTPS also `Strict-Transport-Security`: a browser that once reached the console securely never sends its Basic
/// credentials over plain HTTP to the same host again.
final class SecurityHeaders: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let policy = "default-src 'self'; frame-ancestors 'none'"
    static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
    /// A year: what browsers' preload lists ask of a host, long enough to span the visits between renewals.
    static let strictTransport = "max-age=31536000"

    /// Whether the connection is HTTPS.
    let overTLS: Bool

    init(overTLS: Bool) {
        self.overTLS = overTLS
    }

    /// The headers, for answers that are built once and sent many times: they pass here unchanged.
    static let fields: HTTPFields = [contentTypeOptions: "nosniff", contentSecurityPolicy: policy]

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        if head.headerFields[Self.contentTypeOptions] == nil { head.headerFields.append(contentsOf: Self.fields) }
        if overTLS, head.headerFields[Self.strictTransportSecurity] == nil {
            head.headerFields[Self.strictTransportSecurity] = Self.strictTransport
        }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
