import Foundation
public import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import RichPushCore

/// An error as every client sees it: `{"error": {"status": 422, "code": "image.corrupt", "message": "…"}}`.
///
/// `code` is stable for programs to match on; `message` is a sentence for people.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        let body = ErrorJSON(error: .init(status: Int(status.code), code: code, message: message))
        let buffer = try JSONEncoder.compact.encodeAsByteBuffer(body, allocator: ByteBufferAllocator())
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }
}

extension APIError {
    static func badRequest(_ code: String, _ message: String) -> APIError { .init(.badRequest, code: code, message: message) }
    static func unprocessable(_ code: String, _ message: String) -> APIError {
        .init(.unprocessableContent, code: code, message: message)
    }
    static func notFound(_ code: String, _ message: String) -> APIError { .init(.notFound, code: code, message: message) }
    static func forbidden(_ message: String) -> APIError { .init(.forbidden, code: "auth.forbidden", message: message) }
    static func conflict(_ code: String, _ message: String) -> APIError { .init(.conflict, code: code, message: message) }
    static func gone(_ code: String, _ message: String) -> APIError { .init(.gone, code: code, message: message) }

    static func unauthorized(_ message: String) -> APIError {
        .init(.unauthorized, code: "auth.required", message: message, headers: [.wwwAuthenticate: #"Basic realm="richpush""#])
    }

    /// A refused token is challenged as RFC 6750 says, never for Basic credentials: a browser whose session cookie
    /// ran out then shows the console's sign-in, not its own password box.
    static func tokenRefused(_ message: String) -> APIError {
        .init(
            .unauthorized, code: "auth.required", message: message,
            headers: [.wwwAuthenticate: #"Bearer realm="richpush", error="invalid_token""#])
    }

    static func tooLarge(limit: Int) -> APIError {
        .init(.contentTooLarge, code: "request.tooLarge", message: "The request body is larger than the limit of \(limit) bytes.")
    }

    /// The store's database does not answer; the client may try again shortly, as `Retry-After` says.
    static let storeUnavailable = APIError(
        .serviceUnavailable, code: "store.unavailable", message: "The store does not answer; try again shortly.",
        headers: [.retryAfter: "2"])

    /// The disk under the store is full: nothing of the request was written.
    static let storeFull = APIError(
        HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), code: "store.full",
        message: "The store's disk is full: nothing was written. Try again once space is freed.")

    static func invalidId(_ text: String) -> APIError {
        .badRequest("request.invalidId", "'\(text.prefix(40))' is not an id: ids are positive integers.")
    }
}

extension JSONEncoder {
    /// Sorted keys keep responses stable for caches and tests.
    static let compact: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
