import CLinux
import Glibc

/// SIGTERM, SIGINT and SIGHUP (stop) and SIGCHLD (an opener ended) as a readable descriptor (`signalfd`), so the
/// daemon's loop handles them in order with everything else instead of in an async-signal handler.
final class SignalWatch: @unchecked Sendable {
    static let stopping: Set<Int32> = [SIGTERM, SIGINT, SIGHUP]
    static let watched = stopping.union([SIGCHLD])
    let descriptor: Int32

    /// Blocks the watched signals in the calling thread; threads started later inherit the mask, so only the
    /// descriptor receives them. SIGPIPE is ignored: a closed socket or pipe is an error return, not a death.
    init() {
        signal(SIGPIPE, SIG_IGN)
        var set = sigset_t()
        sigemptyset(&set)
        for number in Self.watched { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        descriptor = signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        precondition(descriptor >= 0, "signalfd failed")
    }

    deinit { close(descriptor) }

    /// The signals received since the last call.
    func take() -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        while read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            received.append(Int32(info.ssi_signo))
        }
        return received
    }
}
