import CPNG

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// PNG validation and decoding over libpng.
public enum PNGImage {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether `bytes` start like a PNG; the cheap check that tells "not an image" from "a broken image".
    public static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: signature)
    }

    /// Decodes every row of `bytes` to prove it is a sound PNG within `limits`, keeping one row in memory.
    public static func validate(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        try decodeRows(of: bytes, limits: limits, rgbIfOpaque: false, into: nil)
    }

    /// Decodes `bytes` to RGBA, whatever the PNG's colour type.
    public static func decode(_ bytes: Data, limits: ImageLimits) throws(ImageError) -> PixelImage {
        var pixels: [UInt8] = []
        let info = try decodeRows(of: bytes, limits: limits, rgbIfOpaque: false) { row, _ in pixels.append(contentsOf: row) }
        return PixelImage(width: info.width, height: info.height, channels: 4, pixels: pixels)
    }

    /// Decodes `bytes` to an image that fits in `maximumEdge` × `maximumEdge` (see ``PixelImage/scaled(toFit:)``),
    /// RGB when the PNG carries no transparency. A larger image is shrunk row by row as it decodes, so its
    /// full-size pixels never exist in memory at once.
    public static func decode(_ bytes: Data, limits: ImageLimits, fittingIn maximumEdge: Int) throws(ImageError) -> PixelImage {
        var shrinker: BoxShrinker?
        var pixels: [UInt8] = []
        var channels = 4
        let info = try decodeRows(of: bytes, limits: limits, rgbIfOpaque: true) { row, layout in
            channels = layout.channels
            if layout.y == 0, let target = BoxShrinker.targetSize(width: layout.width, height: layout.height, fitting: maximumEdge) {
                shrinker = BoxShrinker(width: layout.width, height: layout.height, channels: layout.channels, target: target)
            }
            if shrinker != nil {
                shrinker!.add(row)
            } else {
                pixels.append(contentsOf: row)
            }
        }
        if let shrinker { return shrinker.image() }
        return PixelImage(width: info.width, height: info.height, channels: channels, pixels: pixels)
    }

    /// Where a decoded row belongs.
    struct RowLayout {
        var y: Int
        var width: Int
        var height: Int
        var channels: Int
    }

    /// Carries the Swift closure through libpng's C callback.
    private final class RowReceiver {
        let body: (UnsafeBufferPointer<UInt8>, RowLayout) -> Void
        init(_ body: @escaping (UnsafeBufferPointer<UInt8>, RowLayout) -> Void) { self.body = body }
    }

    /// Runs libpng over `bytes`, handing each decoded row to `receive` top to bottom; `nil` only validates.
    private static func decodeRows(
        of bytes: Data, limits: ImageLimits, rgbIfOpaque: Bool, into receive: ((UnsafeBufferPointer<UInt8>, RowLayout) -> Void)?
    ) throws(ImageError) -> ImageInfo {
        guard hasSignature(bytes) else { throw .unknownFormat }
        guard bytes.count <= limits.maximumBytes else {
            throw .corrupt(.png, "the file is larger than \(limits.maximumBytes) bytes")
        }
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let receiver = receive.map(RowReceiver.init)
        let sink: rp_png_row_sink? =
            receiver == nil
            ? nil
            : { context, row, y, width, height, channels in
                let receiver = Unmanaged<RowReceiver>.fromOpaque(context!).takeUnretainedValue()
                let layout = RowLayout(y: Int(y), width: Int(width), height: Int(height), channels: Int(channels))
                receiver.body(UnsafeBufferPointer(start: row, count: layout.width * layout.channels), layout)
            }
        let status = withExtendedLifetime(receiver) {
            bytes.withUnsafeBytes { raw in
                message.withUnsafeMutableBufferPointer { messageBuffer in
                    rp_png_decode(
                        raw.bindMemory(to: UInt8.self).baseAddress, raw.count, UInt64(limits.maximumPixels), rgbIfOpaque ? 1 : 0, sink,
                        receiver.map { Unmanaged.passUnretained($0).toOpaque() }, &width, &height, messageBuffer.baseAddress,
                        messageBuffer.count)
                }
            }
        }
        switch status {
        case 0:
            return ImageInfo(format: .png, width: Int(width), height: Int(height))
        case 1:
            throw .tooManyPixels(width: Int(width), height: Int(height), limit: limits.maximumPixels)
        default:
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .corrupt(.png, reason.isEmpty ? "libpng could not decode it" : reason)
        }
    }
}
