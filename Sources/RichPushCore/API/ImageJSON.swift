/// An image the gateway stored (`POST /api/images`); the same bytes again answer with the image stored before.
public struct ImageJSON: Codable, Sendable, Equatable {
    public var id: Int64
    /// Of the stored bytes, in hexadecimal.
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var bytes: Int

    public init(id: Int64, sha256: String, contentType: String, width: Int, height: Int, bytes: Int) {
        self.id = id
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}
