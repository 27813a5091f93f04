import Crypto
import Foundation
import HTTPTypes
import NIOPosix
import RichPushCore
import RichPushImaging
import RichPushStore
import Synchronization

/// Admits images into the store: PNG, JPEG and WebP, told apart by their bytes and decoded in full off the event loops,
/// then stored by content hash with their own media type.
final class ImageLibrary: Sendable {
    let images: any ImageRepository
    let limits: ImageLimits
    let directory: String
    private let logoId = Mutex<Int64?>(nil)

    init(images: any ImageRepository, limits: ImageLimits, directory: String) {
        self.images = images
        self.limits = limits
        self.directory = directory
    }

    /// Validates and stores `data`; the same bytes again return the stored image with `created` false. A `declared`
    /// format that the bytes contradict is refused (415 `image.typeMismatch`).
    func admit(_ data: Data, declared: ImageFormat? = nil, createdBy: String) async throws -> (image: ImageRecord, created: Bool) {
        if let declared, let actual = ImageFormat.detect(data), actual != declared {
            throw APIError(
                .unsupportedMediaType, code: "image.typeMismatch",
                message: "The upload is declared as \(declared.mediaType) but its bytes are a \(actual.name) image.")
        }
        let limits = self.limits
        let info: ImageInfo
        do {
            info = try await ComputePool.shared.runIfActive { try ImageDecoder.validate(data, limits: limits) }
        } catch let error as ImageError {
            throw Self.apiError(error)
        }
        let sha256 = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        return try await images.insert(
            data: data, sha256: sha256, contentType: info.format.mediaType, width: info.width, height: info.height, createdBy: createdBy, now: .now)
    }

    /// The id of the bundled `logo.png`, the tutorial's payload, stored on first use.
    func logo(createdBy: String) async throws -> Int64 {
        if let id = logoId.withLock({ $0 }) { return id }
        let path = directory + "/logo.png"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw APIError(.internalServerError, code: "image.bundledMissing", message: "The bundled image \(path) is missing.")
        }
        let id = try await admit(data, createdBy: createdBy).image.id
        logoId.withLock { $0 = id }
        return id
    }

    static func apiError(_ error: ImageError) -> APIError {
        switch error {
        case .unknownFormat:
            APIError(.unsupportedMediaType, code: "image.unsupportedType", message: "The upload is not a PNG, JPEG or WebP image.")
        case .corrupt(let format, let reason):
            .unprocessable("image.corrupt", "The \(format.name) image does not decode: \(reason).")
        case .unsupported(let reason):
            .unprocessable("image.unsupported", "The image cannot be sent: \(reason).")
        case .tooManyPixels(let width, let height, let limit):
            .unprocessable("image.tooManyPixels", "The image has \(width)×\(height) pixels, more than the limit of \(limit).")
        }
    }
}
