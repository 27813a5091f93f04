#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An uploaded image's metadata; the bytes are fetched separately.
public struct ImageRecord: Sendable, Equatable {
    public var id: Int64
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var byteCount: Int
    public var createdBy: String
    public var createdAt: Date

    public init(
        id: Int64, sha256: String, contentType: String, width: Int, height: Int, byteCount: Int, createdBy: String,
        createdAt: Date
    ) {
        self.id = id
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}
