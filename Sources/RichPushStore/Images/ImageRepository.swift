public import Foundation
public import RichPushCore

/// Uploaded images, stored by content: the same bytes uploaded twice are one image.
public protocol ImageRepository: Sendable {
    /// Stores an image by content: the same bytes return the existing image with `created` false.
    func insert(data: Data, sha256: String, contentType: String, width: Int, height: Int, createdBy: String, now: Date) async throws
        -> (image: ImageRecord, created: Bool)
    /// The image's metadata.
    func image(id: Int64) async throws -> ImageRecord?
    /// The image with this content hash, if it was uploaded.
    func image(sha256: String) async throws -> ImageRecord?
    /// The image's bytes.
    func data(id: Int64) async throws -> Data?
}
