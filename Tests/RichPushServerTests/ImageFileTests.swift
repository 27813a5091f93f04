import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import RichPushServer

/// The file a cached image is sent from over plain HTTP.
@Suite("The file of a cached image")
struct ImageFileTests {
    @Test func itHoldsTheImageBytesAndLeavesNoNameInTheDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-image-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = ByteBuffer(bytes: (0..<150_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let file = try #require(ImageFile(bytes, directory: directory.path))
        #expect(file.size == bytes.readableBytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(try contents(of: file) == Array(bytes.readableBytesView))
    }

    /// What a loop sending from `file` sends.
    func contents(of file: ImageFile) throws -> [UInt8] {
        try #require(file.handle(for: EmbeddedEventLoop())).withUnsafeFileDescriptor { descriptor in
            var buffer = [UInt8](repeating: 0, count: file.size + 1)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            return Array(buffer.prefix(max(0, count)))
        }
    }

    @Test func anImagesWholeAnswerIsOneFileASecondOnceItIsAskedForOftenEnough() throws {
        let image = PayloadMemory.Image(bytes: ByteBuffer(string: "png"), contentType: "image/png", entityTag: "\"t\"", file: nil)
        func ask(at second: Int) -> PayloadMemory.Image.AnswerFileAsk {
            image.answerFile(at: second, head: ByteBuffer(string: "head at \(second)|"))
        }
        for _ in 1..<PayloadMemory.Image.answerFileAsks {
            guard case .later = ask(at: 100) else { return #expect(Bool(false), "a file before the image is fetched often") }
        }
        let first = try #require(ask(at: 100).file)
        #expect(ask(at: 100).file === first)
        #expect(try contents(of: first) == Array("head at 100|png".utf8))
        for _ in 1..<PayloadMemory.Image.answerFileAsks { _ = ask(at: 101) }
        let next = try #require(ask(at: 101).file)
        #expect(try contents(of: next) == Array("head at 101|png".utf8))
        guard case .never = ask(at: 100) else { return #expect(Bool(false), "a file for a second already past") }
    }

    /// A NIO file handle fails a second write while one is sending from it, and NIO closes that connection.
    @Test func twoEventLoopsCanSendTheImageAtTheSameMoment() throws {
        let file = try #require(ImageFile(ByteBuffer(string: "an image")))
        let loops = [EmbeddedEventLoop(), EmbeddedEventLoop()]
        let first = try #require(file.handle(for: loops[0]))
        let second = try #require(file.handle(for: loops[1]))
        let read = try first.withUnsafeFileDescriptor { firstDescriptor in
            try second.withUnsafeFileDescriptor { secondDescriptor in
                [firstDescriptor, secondDescriptor].map { descriptor in
                    var bytes = [UInt8](repeating: 0, count: 8)
                    let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 8, 0) }
                    return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
                }
            }
        }
        #expect(read == ["an image", "an image"])
    }

    /// The image cache counts bytes: a cache of many small images must not take the descriptors connections need.
    @Test func imageFilesHoldNoMoreDescriptorsThanTheirBudgetAndGiveThemBack() throws {
        let budget = ImageFile.Budget(limit: 2)
        let loops = [EmbeddedEventLoop(), EmbeddedEventLoop()]
        var first = ImageFile(ByteBuffer(string: "one"), budget: budget)
        #expect(first?.handle(for: loops[0]) != nil)
        #expect(first?.handle(for: loops[1]) == nil, "a loop past the budget sends from memory")
        #expect(ImageFile(ByteBuffer(string: "two"), budget: budget) == nil, "an image past the budget is sent from memory")
        first = nil
        #expect(budget.inUse == 0)
        #expect(ImageFile(ByteBuffer(string: "two"), budget: budget) != nil)
    }

    @Test func fetchesOnOneEventLoopShareItsDescriptor() throws {
        let file = try #require(ImageFile(ByteBuffer(string: "an image")))
        let loop = EmbeddedEventLoop()
        #expect(file.handle(for: loop) === file.handle(for: loop))
    }

    @Test func aDirectoryItCannotWriteInMeansNoFile() {
        #expect(ImageFile(ByteBuffer(string: "png"), directory: "/nonexistent-\(UUID().uuidString)") == nil)
    }
}
