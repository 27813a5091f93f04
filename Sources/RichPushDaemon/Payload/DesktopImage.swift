public import RichPushImaging

/// An image as the freedesktop `image-data` hint carries it, signature `(iiibiiay)`: width, height, row stride,
/// has-alpha, bits per sample (always 8), channels (4 with alpha, else 3) and the pixel bytes, rows top to bottom.
public struct DesktopImage: Sendable, Equatable {
    public var width: Int32
    public var height: Int32
    public var rowStride: Int32
    public var hasAlpha: Bool
    public var bitsPerSample: Int32
    public var channels: Int32
    public var bytes: [UInt8]

    /// The image in `image-data` form. An opaque image travels as RGB: a quarter fewer bytes on the bus than RGBA.
    public init(_ image: PixelImage) {
        width = Int32(image.width)
        height = Int32(image.height)
        bitsPerSample = 8
        // An RGBA image whose every pixel is opaque sheds its alpha too.
        let alphaIsFull = image.hasAlpha && stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 }
        hasAlpha = image.hasAlpha && !alphaIsFull
        channels = hasAlpha ? 4 : 3
        rowStride = Int32(image.width) * channels
        if alphaIsFull {
            let count = image.width * image.height
            bytes = [UInt8](unsafeUninitializedCapacity: count * 3) { rgb, initialized in
                image.pixels.withUnsafeBufferPointer { rgba in
                    for pixel in 0..<count {
                        rgb[pixel * 3] = rgba[pixel * 4]
                        rgb[pixel * 3 + 1] = rgba[pixel * 4 + 1]
                        rgb[pixel * 3 + 2] = rgba[pixel * 4 + 2]
                    }
                }
                initialized = count * 3
            }
        } else {
            bytes = image.pixels
        }
    }
}
