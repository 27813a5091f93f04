import CLinux
import Glibc

/// An `eventfd` that other threads ring to wake the daemon's loop out of `poll`.
final class Wakeup: @unchecked Sendable {
    let descriptor: Int32

    init() {
        descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(descriptor >= 0, "eventfd failed")
    }

    deinit { close(descriptor) }

    func ring() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Clears the pending rings; called when `poll` reported the descriptor readable.
    func drain() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, 8)
    }
}
