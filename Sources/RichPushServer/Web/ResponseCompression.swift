import HTTPTypes
import Hummingbird
import NIOCore

/// gzips the router's JSON, YAML and text answers over a kilobyte for a client whose `Accept-Encoding` takes it
/// (a 100-item list of 8 KB goes out in under 2). Answers of unknown length (the event stream, the CSV export) go
/// as they are: they are sent as they are made, and compressing would hold them back.
struct ResponseCompression<Context: RequestContext>: RouterMiddleware {
    /// Larger answers are sent as they are rather than held whole in memory to be compressed.
    static var largest: Int { 8 << 20 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard response.headers[.contentEncoding] == nil, response.status == .ok || response.status == .created,
            Gzip.compresses(response.headers[.contentType]), let length = response.body.contentLength,
            (Gzip.threshold + 1...Self.largest).contains(length)
        else { return response }
        response.headers[.vary] = "Accept-Encoding"
        guard Gzip.isAccepted(by: request.headers) else { return response }
        let collected = CollectedBody()
        try await response.body.write(collected)
        guard let gzipped = Gzip.compress(collected.bytes) else {
            response.body = .init(byteBuffer: collected.bytes)
            return response
        }
        response.headers[.contentEncoding] = "gzip"
        response.body = .init(byteBuffer: gzipped)
        return response
    }
}

/// The bytes a response body writes, gathered to be compressed whole.
private final class CollectedBody: ResponseBodyWriter {
    var bytes = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        bytes.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
