import Foundation
import NIOCore
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
        let read = try file.handle.withUnsafeFileDescriptor { descriptor in
            var buffer = [UInt8](repeating: 0, count: bytes.readableBytes + 1)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            return Array(buffer.prefix(max(0, count)))
        }
        #expect(read == Array(bytes.readableBytesView))
        #expect(file.region(0..<file.size).readableBytes == bytes.readableBytes)
    }

    @Test func aDirectoryItCannotWriteInMeansNoFile() {
        #expect(ImageFile(ByteBuffer(string: "png"), directory: "/nonexistent-\(UUID().uuidString)") == nil)
    }
}
