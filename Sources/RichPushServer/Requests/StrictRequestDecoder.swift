import Foundation
package import Hummingbird
package import NIOCore

/// The one way every controller reads a JSON body (`request.decode(as:context:)`): JSON content only, at most
/// ``maximumBytes`` (or the type's own ``LargeRequestBody/maximumBodyBytes``), decoded by ``StrictJSONDecoder``.
///
/// Malformed JSON, an unknown field and a field of the wrong JSON type are `400`s (`request.invalidJSON`,
/// `request.unknownField`, `request.invalidField`); a missing field, a value the type refuses and a name no choice
/// takes (``RequestErrorDomain``) are `422`s, as are the checks each request makes after decoding.
package struct StrictRequestDecoder: RequestDecoder {
    /// The largest JSON body of a request type that does not say otherwise.
    static let maximumBytes = 64 * 1024

    package func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try request.requireJSONContentType()
        let limit = (T.self as? any LargeRequestBody.Type)?.maximumBodyBytes ?? Self.maximumBytes
        return try Self.decode(T.self, from: try await request.collectBody(limit: limit))
    }

    /// Decodes a body already collected, with the same errors.
    package static func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer) throws -> T {
        do {
            return try StrictJSONDecoder().decode(T.self, from: Data(buffer: body))
        } catch {
            throw APIError(error, domain: T.self as? any RequestErrorDomain.Type)
        }
    }
}

/// A request body whose refused choices are codes of its resource: a `richType` no notification takes is
/// `notification.invalidRichType`, where a body without a domain says `request.invalidField`.
protocol RequestErrorDomain {
    static var errorDomain: String { get }
    /// The code of a name `field` takes none of; `<domain>.invalid<Field>` unless the body says otherwise.
    static func refusedChoiceCode(field: String) -> String
}

extension RequestErrorDomain {
    static func refusedChoiceCode(field: String) -> String {
        "\(errorDomain).invalid\(field.prefix(1).uppercased())\(field.dropFirst())"
    }
}

/// A request type whose body may be larger than ``StrictRequestDecoder/maximumBytes``.
protocol LargeRequestBody: Decodable {
    static var maximumBodyBytes: Int { get }
}

extension APIError {
    init(_ error: RequestDecodingError, domain: (any RequestErrorDomain.Type)? = nil) {
        switch error {
        case .malformed:
            self = .badRequest("request.invalidJSON", "The body is not valid JSON.")
        case .unknownField(let path):
            self = .badRequest("request.unknownField", "\(path) is not a field of this request.")
        case .invalidField(let path, let expected, let found):
            let article = found == "null" ? "" : found == "array" || found == "object" ? "an " : "a "
            self = .badRequest("request.invalidField", "\(path) must be \(expected), not \(article)\(found).")
        case .missingField(let path):
            self = .unprocessable("request.missingField", "\(path) is required.")
        case .invalidValue(let path, let reason):
            self = .unprocessable("request.invalidField", "\(path) is not valid: \(reason)")
        case .notAChoice(let path, let field, let choices):
            let code = domain?.refusedChoiceCode(field: field) ?? "request.invalidField"
            self = .unprocessable(code, "\(path) must be one of \(choices.joined(separator: ", ")).")
        }
    }
}
