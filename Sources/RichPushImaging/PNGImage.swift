import CPNG

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
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
    /// The bytes do not start with the PNG signature.
    case notPNG
    /// A PNG that does not decode: bad CRC, truncated, malformed.
    case corrupt(String)
    /// A PNG whose dimensions exceed the pixel limit.
    case tooManyPixels(width: Int, height: Int, limit: Int)

    public var description: String {
        switch self {
        case .notPNG: "the data is not a PNG image"
        case .corrupt(let reason): "the PNG image is corrupt: \(reason)"
        case .tooManyPixels(let width, let height, let limit):
            "the image has \(width)×\(height) pixels, more than the limit of \(limit)"
        }
    }
}

/// A PNG that libpng decoded completely.
public struct PNGInfo: Sendable, Equatable {
    public var width: Int
    public var height: Int
}

/// 8-bit RGBA pixels, rows top to bottom without padding.
public struct RGBAImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public var rowStride: Int { width * 4 }
}

/// PNG validation and decoding over libpng.
public enum PNGImage {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether `bytes` start like a PNG; the cheap check that tells "not an image" from "a broken image".
    public static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: signature)
    }

    /// Decodes every row of `bytes` to prove it is a sound PNG within `limits`, keeping one row in memory.
    public static func validate(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> PNGInfo {
        try decode(bytes, limits: limits, into: nil)
    }

    /// Decodes `bytes` to RGBA.
    public static func decode(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> RGBAImage {
        // IHDR comes first in every PNG: its size lets one pass decode straight into the buffer. Anything odd takes
        // the validating pass first, which reports it.
        let info: PNGInfo
        if let header = headerSize(bytes, limits: limits) {
            info = header
        } else {
            info = try validate(bytes, limits: limits)
        }
        var pixels = [UInt8](repeating: 0, count: info.width * info.height * 4)
        let decoded = try pixels.withUnsafeMutableBufferPointer { (buffer) throws(ImageError) -> PNGInfo in
            try decode(bytes, limits: limits, into: buffer)
        }
        return RGBAImage(width: decoded.width, height: decoded.height, pixels: pixels)
    }

    /// Width and height as IHDR states them, when they are within `limits`; libpng checks them again while decoding.
    private static func headerSize(_ bytes: Data, limits: ImageLimits) -> PNGInfo? {
        guard bytes.count >= 24, hasSignature(bytes), bytes.dropFirst(12).prefix(4).elementsEqual("IHDR".utf8) else { return nil }
        let field = { (offset: Int) in bytes.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | Int($1) } }
        let (width, height) = (field(16), field(20))
        guard (1...1_000_000).contains(width), (1...1_000_000).contains(height), width * height <= limits.maximumPixels else { return nil }
        return PNGInfo(width: width, height: height)
    }

    private static func decode(
        _ bytes: Data, limits: ImageLimits, into output: UnsafeMutableBufferPointer<UInt8>?
    ) throws(ImageError) -> PNGInfo {
        guard hasSignature(bytes) else { throw .notPNG }
        guard bytes.count <= limits.maximumBytes else {
            throw .corrupt("the file is larger than \(limits.maximumBytes) bytes")
        }
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBytes { raw in
            message.withUnsafeMutableBufferPointer { messageBuffer in
                rp_png_decode(
                    raw.bindMemory(to: UInt8.self).baseAddress, raw.count, UInt64(limits.maximumPixels),
                    output?.baseAddress, output?.count ?? 0, &width, &height, messageBuffer.baseAddress, messageBuffer.count)
            }
        }
        switch status {
        case 0:
            return PNGInfo(width: Int(width), height: Int(height))
        case 1:
            throw .tooManyPixels(width: Int(width), height: Int(height), limit: limits.maximumPixels)
        default:
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .corrupt(reason.isEmpty ? "libpng could not decode it" : reason)
        }
    }
}
