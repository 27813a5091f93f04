import Foundation
import NIOCore
import Synchronization

/// The bytes of a cached image in a file of their own, already unlinked, so a payload fetch over plain HTTP hands the
/// socket the file (`sendfile`) instead of copying a hundred kilobytes through user space each time; the copy was the
/// largest single cost of a fetch. Closed once the cache and every fetch still sending it have let it go.
///
/// Each event loop sends from a descriptor of its own. A NIO file handle is taken by one write at a time and fails
/// any other with EBUSY, which NIO answers by closing the connection: when two loops sent one image at the same
/// moment, one device got the answer's head and then a closed connection. The loops' handles are duplicates of the
/// file's descriptor; `sendfile` reads at the region's offset, so they share no position.
final class ImageFile: Sendable {
    let size: Int
    private let descriptor: CInt
    private let handles = Mutex<[ObjectIdentifier: NIOFileHandle]>([:])

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
        self.descriptor = descriptor
        size = bytes.readableBytes
    }

    deinit {
        for handle in handles.withLock({ $0.values }) { try? handle.close() }
        close(descriptor)
    }

    /// The bytes of `range`, for one write on `loop`; nil when the loop's descriptor cannot be made (the image is then
    /// sent from memory).
    func region(_ range: Range<Int>, on loop: any EventLoop) -> FileRegion? {
        guard let handle = handle(for: loop) else { return nil }
        return FileRegion(fileHandle: handle, readerIndex: range.lowerBound, endIndex: range.upperBound)
    }

    /// `loop`'s own handle of the file.
    func handle(for loop: any EventLoop) -> NIOFileHandle? {
        handles.withLock { handles in
            let key = ObjectIdentifier(loop)
            if let handle = handles[key] { return handle }
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { return nil }
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
            handles[key] = handle
            return handle
        }
    }
}
