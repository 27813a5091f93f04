import Foundation
import RichPushImaging
import Testing

@testable import RichPushDaemon

@Suite("PNG to the image-data hint")
struct DesktopImageTests {
    func decode(_ name: String) throws -> PixelImage {
        try PNGImage.decode(try fixture(name), limits: ImageLimits())
    }

    @Test func anImageWithTransparencyTravelsAsRGBA() {
        let image = PixelImage(width: 2, height: 2, rgba: [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 9, 9, 9, 255])
        let data = DesktopImage(image)
        #expect(data.width == 2 && data.height == 2)
        #expect(data.hasAlpha)
        #expect(data.channels == 4)
        #expect(data.bitsPerSample == 8)
        #expect(data.rowStride == 8)
        #expect(data.bytes == image.pixels)
    }

    @Test func anOpaqueFixtureDecodesToTheSameRGBBytesAsItsPixels() throws {
        let image = try decode("valid-rgba.png")
        let data = DesktopImage(image)
        #expect(data.channels == 3)
        #expect(data.bytes == image.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element))
    }

    @Test func anOpaqueImageTravelsAsRGBWithoutItsAlpha() throws {
        let image = try decode("two-colors.png")
        let data = DesktopImage(image)
        #expect(!data.hasAlpha)
        #expect(data.channels == 3)
        #expect(data.rowStride == 300 * 3)
        #expect(data.bytes.count == 300 * 200 * 3)
        #expect(Array(data.bytes[0..<3]) == [250, 20, 200])
        #expect(Array(data.bytes[(299 * 3)..<(300 * 3)]) == [20, 230, 90])
    }

    @Test func theCopyInTheAlertFitsTheRequestedSizeAndKeepsItsColours() throws {
        let scaled = try decode("two-colors.png").scaled(toFit: 150)
        #expect(scaled.width == 150)
        #expect(scaled.height == 100)
        let data = DesktopImage(scaled)
        #expect(data.bytes.count == 150 * 100 * 3)
        let row = 50 * Int(data.rowStride)
        #expect(Array(data.bytes[(row + 10 * 3)..<(row + 11 * 3)]) == [250, 20, 200])
        #expect(Array(data.bytes[(row + 140 * 3)..<(row + 141 * 3)]) == [20, 230, 90])
    }

    @Test func shrinkingWhileDecodingGivesTheAlertTheSameCopyAsShrinkingAfterwards() throws {
        let whole = try decode("two-colors.png").scaled(toFit: 128)
        let streamed = try PNGImage.decode(try fixture("two-colors.png"), limits: ImageLimits(), fittingIn: 128)
        #expect(streamed.width == whole.width && streamed.height == whole.height)
        #expect(DesktopImage(streamed) == DesktopImage(whole))
    }

    @Test func anImageWithoutTransparencyDecodesForTheAlertAsRGB() throws {
        let image = try PNGImage.decode(try fixture("two-colors.png"), limits: ImageLimits(), fittingIn: 128)
        #expect(!image.hasAlpha)
        #expect(image.pixels.count == image.width * image.height * 3)
        #expect(Array(image.pixels[0..<3]) == [250, 20, 200])
    }

    @Test func anImageWithAnAlphaChannelKeepsItWhenDecodedForTheAlert() throws {
        let image = try PNGImage.decode(try fixture("valid-rgba.png"), limits: ImageLimits(), fittingIn: 4)
        #expect(image.hasAlpha)
        #expect(image.width == 4 && image.height == 3)
    }

    @Test func anInterlacedImageShrinksWhileDecodingLikeAProgressiveOne() throws {
        let streamed = try PNGImage.decode(try fixture("valid-interlaced.png"), limits: ImageLimits(), fittingIn: 4)
        let whole = try decode("valid-interlaced.png").scaled(toFit: 4)
        #expect(DesktopImage(streamed) == DesktopImage(whole))
    }

    @Test func aSmallImageIsNeverEnlarged() throws {
        let image = try decode("valid-rgba.png")
        #expect(image.scaled(toFit: 256) == image)
    }

    @Test func transparentPixelsDoNotDarkenTheEdgesWhenShrinking() {
        // Two pixels: opaque red and fully transparent black. Averaged naively, the result would be dark red.
        let image = PixelImage(width: 2, height: 1, rgba: [255, 0, 0, 255, 0, 0, 0, 0])
        let scaled = image.scaled(toFit: 1)
        #expect(scaled.pixels == [255, 0, 0, 128])
    }

    @Test func everyDecodableFixtureConvertsToConsistentImageData() throws {
        for name in ["valid-16bit.png", "valid-gray.png", "valid-interlaced.png", "valid-palette.png", "valid-rgba.png"] {
            let data = DesktopImage(try decode(name).scaled(toFit: 64))
            #expect(Int(data.rowStride) == Int(data.width) * Int(data.channels), "\(name)")
            #expect(data.bytes.count == Int(data.rowStride) * Int(data.height), "\(name)")
            #expect(data.channels == (data.hasAlpha ? 4 : 3), "\(name)")
        }
    }
}
