import Foundation
import Hummingbird
import Logging

/// Logs each request's method, path, status and duration. Never headers or query strings: they may carry
/// credentials or signed links.
enum RequestLog {
    static func record(_ request: Request, response: Response, since start: ContinuousClock.Instant, logger: Logger) {
        let elapsed = ContinuousClock.now - start
        logger.debug(
            "request",
            metadata: [
                "http.method": "\(request.method)", "http.path": "\(request.uri.path)", "http.status": "\(response.status.code)",
                "http.duration_ms": "\(elapsed.components.attoseconds / 1_000_000_000_000_000 + elapsed.components.seconds * 1000)",
            ])
    }
}
