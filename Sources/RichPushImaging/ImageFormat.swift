/// The image formats the gateway takes, told apart by their first bytes, never by a declared type.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png
    case jpeg
    case webp

    /// The format `bytes` start like, or nil.
    public static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        if PNGImage.hasSignature(bytes) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        // RIFF, a 4-byte size, WEBP.
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes.dropFirst(8).starts(with: Array("WEBP".utf8)) {
            return .webp
        }
        return nil
    }

    /// The media type of the format: what uploads declare and payloads answer.
    public var mediaType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        }
    }

    /// The format a media type names (`image/jpg` too), or nil.
    public init?(mediaType: String) {
        switch mediaType.lowercased() {
        case "image/png": self = .png
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
        case "image/webp": self = .webp
        default: return nil
        }
    }

    /// The name people use for it.
    public var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .webp: "WebP"
        }
    }

    /// The file name extension.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        }
    }
}
