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
/// file's descriptor; `sendfile` reads at the region's offset, so they share no position. Event loops live as long as
/// the process, so one's identity names its handle.
///
/// The image cache counts bytes, not images, so the descriptors all image files hold come from a ``Budget``: past it,
/// an image or a loop goes without a file and is sent from memory, and the gateway never runs out of descriptors for
/// its connections.
final class ImageFile: Sendable {
    /// How many descriptors image files may hold at once.
    final class Budget: Sendable {
        let limit: Int
        private let held = Atomic<Int>(0)

        init(limit: Int) {
            self.limit = limit
        }

        /// The budget of the gateway's image cache.
        static let images = Budget(limit: 4096)

        var inUse: Int { held.load(ordering: .relaxed) }

        fileprivate func take() -> Bool {
            guard held.add(1, ordering: .relaxed).newValue > limit else { return true }
            held.subtract(1, ordering: .relaxed)
            return false
        }

        fileprivate func giveBack(_ count: Int) {
            held.subtract(count, ordering: .relaxed)
        }
    }

    let size: Int
    private let descriptor: CInt
    private let handles = Mutex<[ObjectIdentifier: NIOFileHandle]>([:])
    private let budget: Budget

    /// Writes `bytes` to a new file in `directory`; nil when that fails or `budget` is spent (the image is then sent
    /// from memory).
    init?(_ bytes: ByteBuffer, directory: String = FileManager.default.temporaryDirectory.path, budget: Budget = .images) {
        guard budget.take() else { return nil }
        var template = Array((directory + "/richpush-image-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            budget.giveBack(1)
            return nil
        }
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
            budget.giveBack(1)
            return nil
        }
        self.descriptor = descriptor
        self.budget = budget
        size = bytes.readableBytes
    }

    deinit {
        let handles = handles.withLock { $0.values }
        for handle in handles { try? handle.close() }
        close(descriptor)
        budget.giveBack(1 + handles.count)
    }

    /// `loop`'s own handle of the file, for the writes of the connections on it; nil when the budget is spent or no
    /// descriptor is left (the image is then sent from memory).
    func handle(for loop: any EventLoop) -> NIOFileHandle? {
        handles.withLock { handles in
            let key = ObjectIdentifier(loop)
            if let handle = handles[key] { return handle }
            guard budget.take() else { return nil }
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else {
                budget.giveBack(1)
                return nil
            }
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
            handles[key] = handle
            return handle
        }
    }
}
