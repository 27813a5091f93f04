import Foundation
import Hummingbird

/// Refuses a path that holds, once percent-decoded, a NUL or another control character (`/index.html%00.png`):
/// nothing the gateway serves has one, and a file lookup that cuts the name at a NUL would answer for another file
/// under the wrong type.
struct PathValidationMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.utf8.contains(UInt8(ascii: "%")) || path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else {
            return try await next(request, context)
        }
        guard let decoded = path.removingPercentEncoding, !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError.badRequest("request.invalidPath", "The path holds a NUL, another control character or a malformed %-escape.")
        }
        return try await next(request, context)
    }
}
