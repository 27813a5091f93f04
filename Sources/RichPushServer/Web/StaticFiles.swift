import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The files of the public directory (the console, `/openapi.yaml`, `/logo.png`) for `GET` (and so `HEAD`), as nginx
/// serves them: `ETag` and `Last-Modified` with `304` for a copy the client holds, one byte range with `206` or `416`
/// (``ByteRange``), and gzip for text, JSON, YAML, JavaScript and CSS over a kilobyte when asked.
///
/// Hummingbird's `FileMiddleware` was served here before; its ranges are wrong (`bytes=-100` answered the first 101
/// bytes, `bytes=99999999-` a negative `Content-Length`, a range at the end one stray byte that put a keep-alive
/// connection out of step), and it compresses nothing.
struct StaticFiles<Context: RequestContext>: RouterMiddleware {
    let files: StaticFileCache

    init(directory: String) {
        files = StaticFileCache(directory: directory)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get, let file = files.file(at: request.uri.path) else { return try await next(request, context) }
        let headers = request.headers
        let gzipped = file.gzipped.flatMap { headers[.range] == nil && Gzip.isAccepted(by: headers) ? $0 : nil }
        let entityTag = gzipped == nil ? file.entityTag : file.gzippedEntityTag
        var answer: HTTPFields = [.eTag: entityTag, .lastModified: file.lastModified, .contentType: file.contentType]
        if file.gzipped != nil { answer[.vary] = "Accept-Encoding" }
        if let ifNoneMatch = headers[.ifNoneMatch] {
            if PayloadReply.matches(ifNoneMatch, entityTag) { return Response(status: .notModified, headers: answer) }
        } else if headers[.ifModifiedSince] == file.lastModified {
            return Response(status: .notModified, headers: answer)
        }
        if let gzipped {
            answer[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: answer, body: .init(byteBuffer: gzipped))
        }
        answer[.acceptRanges] = "bytes"
        let size = file.bytes.readableBytes
        let range = ByteRange(
            range: headers[.range], ifRange: headers[.ifRange], size: size, entityTag: file.entityTag, lastModified: file.lastModified)
        switch range {
        case .whole:
            return Response(status: .ok, headers: answer, body: .init(byteBuffer: file.bytes))
        case .partial(let part):
            for field in range.headers(size: size) { answer[field.name] = field.value }
            return Response(status: .partialContent, headers: answer, body: .init(byteBuffer: file.bytes.readableSlice(part)))
        case .unsatisfiable:
            throw APIError.rangeNotSatisfiable(request.uri.path, size: size)
        }
    }
}
