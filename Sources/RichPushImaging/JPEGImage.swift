import CTurboJPEG

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// JPEG validation and decoding over libjpeg-turbo's TurboJPEG API.
///
/// The header is read first, so an image over the pixel limit is refused before any pixel memory exists. Decoding
/// stops at the first warning (a truncated file, corrupt data that libjpeg would paper over), which counts as
/// corrupt, and at 500 progressive scans, the decompression bomb of JPEG.
public enum JPEGImage {
    /// Decodes `bytes` whole to prove it is a sound JPEG within `limits`.
    public static func validate(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        let image = try decode(bytes, limits: limits)
        return ImageInfo(format: .jpeg, width: image.width, height: image.height)
    }

    /// Decodes `bytes` to RGB.
    public static func decode(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> PixelImage {
        guard bytes.count <= limits.maximumBytes else { throw .corrupt(.jpeg, "the file is larger than \(limits.maximumBytes) bytes") }
        guard let handle = tjInitDecompress() else { throw .corrupt(.jpeg, "libjpeg-turbo could not start") }
        defer { tjDestroy(handle) }
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> PixelImage in try decode(raw.bindMemory(to: UInt8.self), with: handle, limits: limits) }
        }
        return try result.get()
    }

    private static func decode(_ source: UnsafeBufferPointer<UInt8>, with handle: tjhandle, limits: ImageLimits) throws(ImageError)
        -> PixelImage
    {
        guard let base = source.baseAddress, !source.isEmpty else { throw .corrupt(.jpeg, "the file is empty") }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(source.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw .corrupt(.jpeg, message(of: handle))
        }
        guard width > 0, height > 0 else { throw .corrupt(.jpeg, "the image has no pixels") }
        guard Int(width) * Int(height) <= limits.maximumPixels else {
            throw .tooManyPixels(width: Int(width), height: Int(height), limit: limits.maximumPixels)
        }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
        let status = pixels.withUnsafeMutableBufferPointer { destination in
            tjDecompress2(
                handle, base, UInt(source.count), destination.baseAddress, width, 0, height, Int32(TJPF_RGB.rawValue),
                TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
        }
        guard status == 0 else { throw .corrupt(.jpeg, message(of: handle)) }
        return PixelImage(width: Int(width), height: Int(height), channels: 3, pixels: pixels)
    }

    private static func message(of handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "libjpeg-turbo could not decode it" }
        return String(cString: text)
    }
}
