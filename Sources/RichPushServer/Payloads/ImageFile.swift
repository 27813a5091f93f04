import Foundation
import NIOCore

/// The bytes of a cached image in a file of their own, already unlinked, so a payload fetch over plain HTTP hands the
/// socket the file (`sendfile`) instead of copying a hundred kilobytes through user space each time; the copy was the
/// largest single cost of a fetch. Closed once the cache and every fetch still sending it have let it go.
final class ImageFile: @unchecked Sendable {
    // Unchecked: NIOFileHandle is a class whose descriptor is only read after this initializer, and closed once.
    let handle: NIOFileHandle
    let size: Int

    /// Writes `bytes` to a new file in `directory`; nil when that fails (the image is then sent from memory).
    init?(_ bytes: ByteBuffer, directory: String = FileManager.default.temporaryDirectory.path) {
        var template = Array((directory + "/richpush-image-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        let written = bytes.withUnsafeReadableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written else {
            close(descriptor)
            return nil
        }
        handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        size = bytes.readableBytes
    }

    deinit { try? handle.close() }

    /// The bytes of `range`, for one write.
    func region(_ range: Range<Int>) -> FileRegion { FileRegion(fileHandle: handle, readerIndex: range.lowerBound, endIndex: range.upperBound) }
}
