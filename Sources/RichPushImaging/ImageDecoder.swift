#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// PNG, JPEG and WebP behind one door: the format comes from the bytes, each is decoded whole under the same limits.
public enum ImageDecoder {
    /// Decodes `bytes` whole to prove it is a sound image of a format the gateway takes, within `limits`.
    public static func validate(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        switch ImageFormat.detect(bytes) {
        case .png: try PNGImage.validate(bytes, limits: limits)
        case .jpeg: try JPEGImage.validate(bytes, limits: limits)
        case .webp: try WebPImage.validate(bytes, limits: limits)
        case nil: throw .unknownFormat
        }
    }

    /// Decodes `bytes` to an image that fits in `maximumEdge` × `maximumEdge` (see ``BoxShrinker``), RGB when the
    /// image has no transparency. A PNG is shrunk row by row as it decodes; JPEG and WebP decode whole first.
    public static func decode(_ bytes: Data, limits: ImageLimits, fittingIn maximumEdge: Int) throws(ImageError) -> PixelImage {
        let image: PixelImage
        switch ImageFormat.detect(bytes) {
        case .png: return try PNGImage.decode(bytes, limits: limits, fittingIn: maximumEdge)
        case .jpeg: image = try JPEGImage.decode(bytes, limits: limits)
        case .webp: image = try WebPImage.decode(bytes, limits: limits)
        case nil: throw .unknownFormat
        }
        guard let target = BoxShrinker.targetSize(width: image.width, height: image.height, fitting: maximumEdge) else { return image }
        var shrinker = BoxShrinker(width: image.width, height: image.height, channels: image.channels, target: target)
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<image.height {
                shrinker.add(UnsafeBufferPointer(rebasing: pixels[(row * image.rowStride)..<((row + 1) * image.rowStride)]))
            }
        }
        return shrinker.image()
    }
}
