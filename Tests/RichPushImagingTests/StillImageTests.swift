import Foundation
import RichPushImaging
import Testing

@Suite("JPEG and WebP validation and decoding")
struct StillImageTests {
    let limits = ImageLimits()

    @Test(arguments: [
        ("valid.jpg", ImageFormat.jpeg), ("valid-progressive.jpg", .jpeg), ("valid.webp", .webp), ("valid-alpha.webp", .webp),
        ("valid-rgba.png", .png),
    ])
    func soundImagesDecodeWholeWithTheirSize(name: String, format: ImageFormat) throws {
        let info = try ImageDecoder.validate(try fixture(name), limits: limits)
        #expect(info.format == format)
        if format != .png { #expect((info.width, info.height) == (64, 48)) }
    }

    @Test(arguments: ["valid.jpg", "valid-progressive.jpg", "valid.webp"])
    func decodedPixelsAreTheImagesOwn(name: String) throws {
        let image = try ImageDecoder.decode(try fixture(name), limits: limits, fittingIn: 1000)
        #expect(image.channels == 3)
        // The fixture is a gradient: red grows left to right, green top to bottom, blue stays near 128.
        let topLeft = Array(image.pixels[0..<3])
        let bottomRight = Array(image.pixels[(image.pixels.count - 3)...])
        #expect(topLeft[0] < 40 && topLeft[1] < 40)
        #expect(bottomRight[0] > 215 && bottomRight[1] > 215)
        #expect((100...156).contains(Int(topLeft[2])))
    }

    @Test func aWebPWithAlphaKeepsIt() throws {
        let image = try ImageDecoder.decode(try fixture("valid-alpha.webp"), limits: limits, fittingIn: 1000)
        #expect(image.hasAlpha)
        #expect(image.pixels[3] < 10)
    }

    @Test(arguments: ["valid.jpg", "valid.webp"])
    func aLargeImageShrinksToFit(name: String) throws {
        let image = try ImageDecoder.decode(try fixture(name), limits: limits, fittingIn: 16)
        #expect((image.width, image.height) == (16, 12))
    }

    @Test(arguments: [("truncated.jpg", ImageFormat.jpeg), ("not-png.jpg", .jpeg), ("truncated.webp", .webp)])
    func aTruncatedOrBrokenImageIsCorrupt(name: String, format: ImageFormat) throws {
        let data = try fixture(name)
        #expect {
            try ImageDecoder.validate(data, limits: limits)
        } throws: { error in
            guard case .corrupt(format, let reason) = error as? ImageError else { return false }
            return !reason.isEmpty
        }
    }

    @Test func aJPEGThatClaimsMorePixelsThanTheLimitIsRefusedBeforeDecoding() throws {
        #expect(throws: ImageError.tooManyPixels(width: 60000, height: 60000, limit: 40_000_000)) {
            try ImageDecoder.validate(try fixture("dimension-bomb.jpg"), limits: limits)
        }
    }

    @Test func aWebPThatClaimsMorePixelsThanTheLimitIsRefusedBeforeDecoding() throws {
        #expect(throws: ImageError.tooManyPixels(width: 16384, height: 16384, limit: 40_000_000)) {
            try ImageDecoder.validate(try fixture("dimension-bomb.webp"), limits: limits)
        }
    }

    @Test func anAnimatedWebPIsUnsupported() throws {
        #expect {
            try ImageDecoder.validate(try fixture("animated.webp"), limits: limits)
        } throws: { error in
            guard case .unsupported = error as? ImageError else { return false }
            return true
        }
    }

    @Test(arguments: [Data("GIF89a......".utf8), Data("RIFF\0\0\0\0WAVE".utf8), Data()])
    func bytesOfAnotherFormatAreUnknown(data: Data) {
        #expect(throws: ImageError.unknownFormat) { try ImageDecoder.validate(data, limits: limits) }
    }

    @Test(arguments: [
        ("image/png", ImageFormat.png), ("image/jpeg", .jpeg), ("image/JPG", .jpeg), ("image/webp", .webp),
    ])
    func mediaTypesNameTheirFormat(mediaType: String, format: ImageFormat) {
        #expect(ImageFormat(mediaType: mediaType) == format)
    }
}
