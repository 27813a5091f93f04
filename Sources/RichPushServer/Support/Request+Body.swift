import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore

extension Request {
    /// The body, refused with 413 as soon as it is known to exceed `limit`: from `Content-Length` before reading a
    /// byte, otherwise as the limit is crossed while streaming.
    func collectBody(limit: Int) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge(limit: limit)
        }
        var collected = ByteBuffer()
        for try await part in body {
            guard collected.readableBytes + part.readableBytes <= limit else { throw APIError.tooLarge(limit: limit) }
            var part = part
            collected.writeBuffer(&part)
        }
        return collected
    }

    /// Decodes a JSON body of at most `limit` bytes: malformed JSON is a 400, well-formed JSON of the wrong shape a 422.
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        try requireJSONContentType()
        return try Self.decodeJSON(T.self, from: try await collectBody(limit: limit))
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

    /// Decodes JSON already collected, with the same errors as ``decodeJSON(_:limit:)``.
    static func decodeJSON<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw describe(error)
        }
    }

    static func describe(_ error: DecodingError) -> APIError {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the body" : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .badRequest("request.invalidJSON", "The body is not valid JSON.")
        case .typeMismatch(let type, let context):
            return .unprocessable("request.invalidField", "\(path(context)) must be \(Self.describe(type)).")
        case .valueNotFound(let type, let context):
            return .unprocessable("request.invalidField", "\(path(context)) must be \(Self.describe(type)), not null.")
        case .keyNotFound(let key, _):
            return .unprocessable("request.missingField", "\(key.stringValue) is required.")
        case .dataCorrupted(let context):
            return .unprocessable("request.invalidField", "\(path(context)) is not valid: \(context.debugDescription)")
        @unknown default:
            return .badRequest("request.invalidJSON", "The body could not be read.")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "true or false"
        case is [String].Type: "an array of strings"
        default: "of another type"
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
        let text = parameters.get(name) ?? ""
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
