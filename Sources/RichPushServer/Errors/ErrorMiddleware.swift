import Foundation
import Hummingbird
import Logging
import RichPushStore

/// Turns every error into the JSON error body, so no client ever sees an empty or HTML error, and no failure
/// escapes as a bare 500.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try Self.translate(error).response(from: request, context: context)
        } catch StoreError.unavailable {
            return try APIError.storeUnavailable.response(from: request, context: context)
        } catch StoreError.full {
            context.logger.error("the disk under the store is full: writes fail until space is freed")
            return try APIError.storeFull.response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            return try APIError(.internalServerError, code: "internal", message: "The gateway could not complete the request.")
                .response(from: request, context: context)
        }
    }

    /// Errors raised by the framework (unknown route, oversized body) in our shape.
    static func translate(_ error: any HTTPResponseError) -> APIError {
        let message = (error as? HTTPError)?.body
        switch error.status {
        case .notFound: return .notFound("request.notFound", "There is nothing at this path.")
        case .contentTooLarge: return APIError(.contentTooLarge, code: "request.tooLarge", message: message ?? "The request body is too large.")
        case .unauthorized: return .unauthorized(message ?? "Authentication is required.")
        default:
            return APIError(
                error.status, code: "request.\(error.status.code)", message: message ?? error.status.reasonPhrase)
        }
    }
}
