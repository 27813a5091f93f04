#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an upload may be: bounds checked before any pixel memory is allocated.
public struct ImageLimits: Sendable, Equatable {
    public var maximumBytes: Int
    public var maximumPixels: Int

    public init(maximumBytes: Int = 10 * 1024 * 1024, maximumPixels: Int = 40_000_000) {
        self.maximumBytes = maximumBytes
        self.maximumPixels = maximumPixels
    }
}

/// Why bytes are not an acceptable image.
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes start like no format the gateway takes (PNG, JPEG, WebP).
    case unknownFormat
    /// An image that does not decode whole: bad checksum, truncated, malformed, or a decoder warning.
    case corrupt(ImageFormat, String)
    /// An image whose dimensions exceed the pixel limit.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// A sound image of a kind no device shows as a still picture, such as an animated WebP.
    case unsupported(String)

    public var description: String {
        switch self {
        case .unknownFormat: "the data is not a PNG, JPEG or WebP image"
        case .corrupt(let format, let reason): "the \(format.name) image is corrupt: \(reason)"
        case .tooManyPixels(let width, let height, let limit):
            "the image has \(width)×\(height) pixels, more than the limit of \(limit)"
        case .unsupported(let reason): reason
        }
    }
}

/// An image that its decoder read completely.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
}

/// 8-bit pixels, rows top to bottom without padding: RGB, or RGBA with straight (not premultiplied) alpha.
public struct PixelImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 3 for RGB, 4 for RGBA.
    public var channels: Int
    public var pixels: [UInt8]

    public var hasAlpha: Bool { channels == 4 }
    public var rowStride: Int { width * channels }

    /// An image from `rgba`: `width` × `height` RGBA quadruples, rows top to bottom.
    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(rgba.count == width * height * 4, "RGBA pixels must number width × height × 4 bytes")
        self.init(width: width, height: height, channels: 4, pixels: rgba)
    }

    init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }
}
