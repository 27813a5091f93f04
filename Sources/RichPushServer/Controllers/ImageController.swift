import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import MultipartKit
import NIOCore
import RichPushCore
import RichPushImaging
import RichPushStore

/// `POST /api/images`: a raw PNG, JPEG or WebP body, or a `multipart/form-data` upload with a `file` part. The format
/// comes from the bytes; a declared type that names another one is refused.
struct ImageController {
    let imageLimits: ImageLimits
    let metrics: GatewayMetrics
    let library: ImageLibrary

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("images", use: upload)
    }

    @Sendable func upload(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "upload images")
        let limit = imageLimits.maximumBytes
        let mediaType = request.headers[.contentType].flatMap(MediaType.init(from:))
        let data: Data
        let declared: ImageFormat?
        switch (mediaType?.type, mediaType?.subType) {
        case (.image?, _):
            declared = try Self.format(declaredAs: "image/\(mediaType!.subType)")
            data = Data(buffer: try await request.collectBody(limit: limit))
        case (.application?, "octet-stream"?), (nil, nil):
            declared = nil
            data = Data(buffer: try await request.collectBody(limit: limit))
        case (.multipart?, "form-data"?):
            guard let boundary = mediaType?.parameter?.value, mediaType?.parameter?.name.lowercased() == "boundary" else {
                throw APIError.badRequest("request.invalidMultipart", "The multipart Content-Type has no boundary.")
            }
            // Room for the part headers around the image.
            let body = try await request.collectBody(limit: limit + 16 * 1024)
            let part = try Self.filePart(of: body, boundary: boundary, limit: limit)
            declared = try part.contentType.flatMap(Self.format(declaredAs:))
            data = part.data
        default:
            throw Self.unsupportedType
        }
        guard !data.isEmpty else { throw APIError.unprocessable("image.empty", "The upload is empty.") }
        let (image, created) = try await library.admit(data, declared: declared, createdBy: caller.username)
        if created {
            metrics.imageStored()
            context.logger.info("image stored", metadata: ["richpush.image.id": "\(image.id)", "richpush.bytes": "\(image.byteCount)"])
        }
        return EditedResponse(status: created ? .created : .ok, headers: [.location: "/api/images/\(image.id)"], response: ImageJSON(image))
    }

    static let unsupportedType = APIError(
        .unsupportedMediaType, code: "image.unsupportedType",
        message: "Upload a PNG, JPEG or WebP image, raw or as the file part of multipart/form-data.")

    /// The format a declared media type names; `application/octet-stream` names none. Any other type is refused.
    private static func format(declaredAs mediaType: String) throws -> ImageFormat? {
        if mediaType.lowercased() == "application/octet-stream" { return nil }
        guard let format = ImageFormat(mediaType: mediaType) else { throw unsupportedType }
        return format
    }

    /// The bytes of the part named `file`, with the type its part declares.
    static func filePart(of body: ByteBuffer, boundary: String, limit: Int) throws -> (data: Data, contentType: String?) {
        guard MultipartHeaderCheck.namesAreASCII(in: body, boundary: boundary) else {
            throw APIError.badRequest("request.invalidMultipart", "A part's header name holds a byte outside ASCII.")
        }
        let parser = MultipartParser(boundary: boundary)
        var currentName: String?
        var currentType: String?
        var currentBody = ByteBuffer()
        var file: (ByteBuffer, String?)?
        parser.onHeader = { field, value in
            switch field.lowercased() {
            case "content-disposition": currentName = Self.dispositionName(value)
            case "content-type": currentType = value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
            default: break
            }
        }
        parser.onBody = { chunk in
            currentBody.writeBuffer(&chunk)
        }
        parser.onPartComplete = {
            if currentName == "file", file == nil { file = (currentBody, currentType) }
            currentName = nil
            currentType = nil
            currentBody = ByteBuffer()
        }
        do {
            try parser.execute(body)
        } catch {
            throw APIError.badRequest("request.invalidMultipart", "The multipart body is malformed.")
        }
        guard let (bytes, contentType) = file else {
            throw APIError.unprocessable("image.missingFile", "The multipart body has no part named file.")
        }
        guard bytes.readableBytes <= limit else { throw APIError.tooLarge(limit: limit) }
        return (Data(buffer: bytes), contentType)
    }

    private static func dispositionName(_ value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "name" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}
