import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Puts the headers every answer carries on every answer, whoever wrote it (the router, the payload fast path, the
/// framework's own refusals): `X-Content-Type-Options: nosniff`, so no browser runs an answer as something it is
/// not, and a `Content-Security-Policy` that lets the console load only its own files and no page frame it.
final class SecurityHeaders: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let policy = "default-src 'self'; frame-ancestors 'none'"

    /// The headers, for answers that are built once and sent many times: they pass here unchanged.
    static let fields: HTTPFields = [contentTypeOptions: "nosniff", contentSecurityPolicy: policy]

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), head.headerFields[Self.contentTypeOptions] == nil else {
            context.write(data, promise: promise)
            return
        }
        head.headerFields.append(contentsOf: Self.fields)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
