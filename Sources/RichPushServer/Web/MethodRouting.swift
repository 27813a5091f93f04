import HTTPTypes
import Hummingbird

/// The router as HTTP clients expect it (RFC 9110 §9.3.2, §9.3.7, §15.5.6): `HEAD` wherever `GET` is served, with
/// `GET`'s status and headers and no body; a path routed for other methods answers `405` with `Allow` instead of
/// `404`, and `OPTIONS` on it `204` with `Allow`.
///
/// Hummingbird's router resolves a path and a method together, and its only answer for a known path with another
/// method is `404`. A second router over the same paths, each answering with its methods, knows which paths are
/// routed by the first router's own matching rules (a literal segment before a capture), so the two never disagree.
struct MethodRouting<Context: RequestContext>: HTTPResponder {
    private let routes: RouterResponder<Context>
    /// Every routed path: `GET` answers `204` with its `Allow`, `HEAD` answers only where a route of its own serves it.
    private let methods: RouterResponder<Context>

    init(_ router: Router<Context>) {
        routes = router.buildResponder()
        let known = Router(context: Context.self)
        for routes in Dictionary(grouping: router.routes, by: { $0.path.description }).values {
            var allowed = Set(routes.map(\.method))
            if allowed.contains(.head) {
                known.head(routes[0].path) { _, _ in HTTPResponse.Status.noContent }
            }
            if allowed.contains(.get) { allowed.insert(.head) }
            allowed.insert(.options)
            let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
            known.get(routes[0].path) { _, _ in Response(status: .noContent, headers: [.allow: allow]) }
        }
        methods = known.buildResponder()
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await route(request, context: context)
        RequestLog.record(request, response: response, since: start, logger: context.logger)
        return response
    }

    private func route(_ request: Request, context: Context) async throws -> Response {
        let headAsGet = request.method == .head ? try await !hasOwnHead(request, context: context) : false
        var response = try await routes.respond(to: headAsGet ? request.as(.get) : request, context: context)
        if response.status == .notFound, context.endpointPath == "NotFound", let allow = try await allowed(request, context: context) {
            response =
                request.method == .options
                ? Response(status: .noContent, headers: [.allow: allow])
                : try APIError(
                    .methodNotAllowed, code: "request.methodNotAllowed",
                    message: "\(request.uri.path) does not take \(request.method.rawValue); it takes \(allow).", headers: [.allow: allow]
                ).response(from: request, context: context)
        }
        guard headAsGet else { return response }
        var head = Response(status: response.status, headers: response.headers, body: .init())
        // A streamed answer's length is not known before it is sent: HEAD then names none, rather than 0.
        if response.headers[.contentLength] == nil { head.headers[.contentLength] = nil }
        return head
    }

    /// The methods routed at the request's path, as `Allow` lists them; nil for a path nothing is routed at.
    private func allowed(_ request: Request, context: Context) async throws -> String? {
        let answer = try await methods.respond(to: request.as(.get), context: context)
        return answer.status == .noContent ? answer.headers[.allow] : nil
    }

    /// Whether a route of its own serves `HEAD` at the request's path (the payload does, to send no image).
    private func hasOwnHead(_ request: Request, context: Context) async throws -> Bool {
        try await methods.respond(to: request, context: context).status == .noContent
    }
}

extension Request {
    /// The same request with another method.
    fileprivate func `as`(_ method: HTTPRequest.Method) -> Request {
        var head = head
        head.method = method
        return Request(head: head, body: body)
    }
}
