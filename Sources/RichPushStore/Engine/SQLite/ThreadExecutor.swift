import NIOCore
import NIOPosix

/// A task executor with a thread of its own, for code that blocks: a task that prefers it runs its nonisolated async
/// code there, awaits included, without hopping to other threads in between.
///
/// The thread stops when the executor goes, not when its connection closes: a stopped loop drops the jobs it is
/// given, so a task still finishing a statement after the store closed (a service the group cancelled when the server
/// could not bind its port) would never resume, and the process would hang instead of exiting. Left running, the
/// task meets the closed connection and ends with its error.
final class ThreadExecutor: TaskExecutor {
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop

    init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrent: Bool { loop.inEventLoop }

    deinit {
        group.shutdownGracefully { _ in }
    }
}
