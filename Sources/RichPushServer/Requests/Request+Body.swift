import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOFoundationEssentialsCompat

extension Request {
    /// The body, refused with 413 as soon as it is known to exceed `limit`: from `Content-Length` before reading a
    /// byte, otherwise as the collection crosses the limit while streaming.
    func collectBody(limit: Int) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge(limit: limit)
        }
        do {
            return try await body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.tooLarge(limit: limit)
        }
    }

    /// Refuses bodies declared as something clearly not JSON. A missing Content-Type, and curl's default for `-d`
    /// (`application/x-www-form-urlencoded`), are read as JSON so `curl -d '{…}'` just works.
    func requireJSONContentType() throws {
        if let contentType = headers[.contentType], let mediaType = MediaType(from: contentType),
            !(mediaType.type == .application
                && (mediaType.subType == "json" || mediaType.subType.hasSuffix("+json") || mediaType.subType == "x-www-form-urlencoded"))
        {
            throw APIError(.unsupportedMediaType, code: "request.unsupportedMediaType", message: "The body must be JSON (application/json).")
        }
    }
}

extension Data {
    init(buffer: ByteBuffer) {
        self = buffer.getData(at: buffer.readerIndex, length: buffer.readableBytes) ?? Data()
    }
}

extension RichPushRequestContext {
    /// The positive integer id in path parameter `name`; a 400 for `0`, `-1`, `abc` or an overflowing number.
    func id(_ name: String = "id") throws -> Int64 {
        let text = try parameters.require(name)
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let id = Int64(text), id > 0
        else { throw APIError.invalidId(text) }
        return id
    }
}

extension URI {
    /// A query value that must be a non-negative integer when present.
    func integer(_ name: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let text = queryParameters.get(name), !text.isEmpty else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw APIError.badRequest("request.invalidQuery", "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }
}
