import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import RichPushImaging

/// `POST /api/images`: a raw `image/png` body or a `multipart/form-data` upload with a `file` part.
struct ImageController {
    let gateway: Gateway
    let library: ImageLibrary

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("images", use: upload)
    }

    @Sendable func upload(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.caller()
        try caller.require(.marketer, to: "upload images")
        let limit = gateway.configuration.imageLimits.maximumBytes
        let mediaType = request.headers[.contentType].flatMap(MediaType.init(from:))
        let data: Data
        switch (mediaType?.type, mediaType?.subType) {
        case (.image?, "png"?), (.application?, "octet-stream"?), (nil, nil):
            data = Data(buffer: try await request.collectBody(limit: limit))
        case (.multipart?, "form-data"?):
            guard let boundary = mediaType?.parameter?.value, mediaType?.parameter?.name.lowercased() == "boundary" else {
                throw APIError.badRequest("request.invalidMultipart", "The multipart Content-Type has no boundary.")
            }
            // Room for the part headers around the image.
            let body = try await request.collectBody(limit: limit + 16 * 1024)
            data = try Self.filePart(of: body, boundary: boundary, limit: limit)
        default:
            throw APIError(.unsupportedMediaType, code: "image.unsupportedType", message: "Upload a PNG image as image/png or multipart/form-data.")
        }
        guard !data.isEmpty else { throw APIError.unprocessable("image.empty", "The upload is empty.") }
        let (image, created) = try await library.admit(data, createdBy: caller.username)
        if created {
            gateway.metrics.imagesStored.increment()
            context.logger.info("image stored", metadata: ["richpush.image.id": "\(image.id)", "richpush.bytes": "\(image.byteCount)"])
        }
        return try ImageJSON(image).jsonResponse(status: created ? .created : .ok, headers: [.location: "/api/images/\(image.id)"])
    }

    /// The bytes of the part named `file`.
    static func filePart(of body: ByteBuffer, boundary: String, limit: Int) throws -> Data {
        let parser = MultipartParser(boundary: boundary)
        var currentName: String?
        var currentBody = ByteBuffer()
        var file: ByteBuffer?
        parser.onHeader = { field, value in
            guard field.lowercased() == "content-disposition" else { return }
            currentName = Self.dispositionName(value)
        }
        parser.onBody = { chunk in
            currentBody.writeBuffer(&chunk)
        }
        parser.onPartComplete = {
            if currentName == "file", file == nil { file = currentBody }
            currentName = nil
            currentBody = ByteBuffer()
        }
        do {
            try parser.execute(body)
        } catch {
            throw APIError.badRequest("request.invalidMultipart", "The multipart body is malformed.")
        }
        guard let file else { throw APIError.unprocessable("image.missingFile", "The multipart body has no part named file.") }
        guard file.readableBytes <= limit else { throw APIError.tooLarge(limit: limit) }
        return Data(buffer: file)
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
