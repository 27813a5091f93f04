import Foundation
import RichPushImaging
import Testing

/// The PNG fixtures shared by the test targets, found next to this file's folder.
func fixture(_ name: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name)
    return try Data(contentsOf: url)
}

@Suite("PNG validation and decoding")
struct PNGImageTests {
    let limits = ImageLimits(maximumBytes: 10 * 1024 * 1024, maximumPixels: 40_000_000)

    @Test(arguments: ["valid-rgba.png", "valid-gray.png", "valid-palette.png", "valid-16bit.png", "valid-interlaced.png"])
    func soundImagesOfEveryColourTypeValidate(name: String) throws {
        let info = try PNGImage.validate(try fixture(name), limits: limits)
        #expect(info.width == 8 && info.height == 6)
    }

    @Test func decodingYieldsRGBAPixelsTopToBottom() throws {
        let image = try PNGImage.decode(try fixture("valid-rgba.png"), limits: limits)
        #expect(image.width == 8 && image.height == 6)
        #expect(image.pixels.count == 8 * 6 * 4)
        // Pixel (x: 2, y: 3) was written as (60, 120, 200, 255).
        let offset = (3 * 8 + 2) * 4
        #expect(Array(image.pixels[offset..<offset + 4]) == [60, 120, 200, 255])
    }

    @Test func interlacedImagesDecodeToTheSamePixelsAsProgressiveOnes() throws {
        let image = try PNGImage.decode(try fixture("valid-interlaced.png"), limits: limits)
        let offset = (5 * 8 + 7) * 4
        #expect(Array(image.pixels[offset..<offset + 4]) == [210, 200, 77, 255])
    }

    @Test func grayscaleAndPalettesAreExpandedToRGBA() throws {
        let gray = try PNGImage.decode(try fixture("valid-gray.png"), limits: limits)
        #expect(Array(gray.pixels[(1 * 4)..<(2 * 4)]) == [30, 30, 30, 255])
        let palette = try PNGImage.decode(try fixture("valid-palette.png"), limits: limits)
        #expect(Array(palette.pixels[0..<8]) == [255, 0, 0, 255, 0, 255, 0, 255])
    }

    @Test(arguments: ["not-png.jpg"])
    func bytesWithoutThePNGSignatureAreNotPNG(name: String) throws {
        #expect(throws: ImageError.unknownFormat) { try PNGImage.validate(try fixture(name), limits: limits) }
    }

    @Test func anEmptyUploadIsNotPNG() {
        #expect(throws: ImageError.unknownFormat) { try PNGImage.validate(Data(), limits: limits) }
    }

    @Test(arguments: [
        "bad-crc-idat.png", "bad-crc-ancillary.png", "truncated.png", "no-iend.png", "trailing-data.png", "short-idat.png",
    ])
    func brokenImagesAreCorrupt(name: String) throws {
        let data = try fixture(name)
        #expect {
            try PNGImage.validate(data, limits: limits)
        } throws: { error in
            guard case .corrupt(.png, let reason) = error as? ImageError else { return false }
            return !reason.isEmpty
        }
    }

    @Test func aHugeDeclaredSizeIsRefusedBeforeAnyPixelIsDecoded() throws {
        #expect(throws: ImageError.tooManyPixels(width: 100_000, height: 100_000, limit: 40_000_000)) {
            try PNGImage.validate(try fixture("dimension-bomb.png"), limits: limits)
        }
    }

    @Test func aSmallFileThatInflatesBeyondThePixelLimitIsRefused() throws {
        let bomb = try fixture("decompression-bomb.png")
        #expect(bomb.count < 64 * 1024)
        #expect(throws: ImageError.tooManyPixels(width: 8000, height: 6000, limit: 40_000_000)) {
            try PNGImage.validate(bomb, limits: limits)
        }
    }

    @Test func theByteLimitIsEnforced() throws {
        let data = try fixture("valid-rgba.png")
        #expect(throws: ImageError.self) { try PNGImage.validate(data, limits: ImageLimits(maximumBytes: 100, maximumPixels: 100)) }
    }
}
