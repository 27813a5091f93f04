import CWebP

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// WebP validation and decoding over libwebp.
///
/// The bitstream's features are read first: an image over the pixel limit is refused before any pixel memory
/// exists, and an animation (no still picture to show) is refused as unsupported. A file that ends early does not
/// decode at all.
public enum WebPImage {
    /// Decodes `bytes` whole to prove it is a sound still WebP within `limits`.
    public static func validate(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        let image = try decode(bytes, limits: limits)
        return ImageInfo(format: .webp, width: image.width, height: image.height)
    }

    /// Decodes `bytes` to RGBA, or RGB when the image has no alpha.
    public static func decode(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> PixelImage {
        guard bytes.count <= limits.maximumBytes else { throw .corrupt(.webp, "the file is larger than \(limits.maximumBytes) bytes") }
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> PixelImage in try decode(raw.bindMemory(to: UInt8.self), limits: limits) }
        }
        return try result.get()
    }

    private static func decode(_ source: UnsafeBufferPointer<UInt8>, limits: ImageLimits) throws(ImageError) -> PixelImage {
        guard let base = source.baseAddress, !source.isEmpty else { throw .corrupt(.webp, "the file is empty") }
        var width: Int32 = 0
        var height: Int32 = 0
        var hasAlpha: Int32 = 0
        var hasAnimation: Int32 = 0
        let status = rp_webp_features(base, source.count, &width, &height, &hasAlpha, &hasAnimation)
        guard status == 0 else { throw .corrupt(.webp, "the bitstream is not valid (libwebp status \(status))") }
        guard hasAnimation == 0 else { throw .unsupported("an animated WebP has no single picture to show") }
        guard Int(width) * Int(height) <= limits.maximumPixels else {
            throw .tooManyPixels(width: Int(width), height: Int(height), limit: limits.maximumPixels)
        }
        let channels = hasAlpha != 0 ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * channels)
        let decoded = pixels.withUnsafeMutableBufferPointer { destination in
            let stride = Int32(Int(width) * channels)
            return channels == 4
                ? WebPDecodeRGBAInto(base, source.count, destination.baseAddress, destination.count, stride)
                : WebPDecodeRGBInto(base, source.count, destination.baseAddress, destination.count, stride)
        }
        guard decoded != nil else { throw .corrupt(.webp, "libwebp could not decode it (truncated or malformed)") }
        return PixelImage(width: Int(width), height: Int(height), channels: channels, pixels: pixels)
    }
}
