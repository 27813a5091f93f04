import NIOCore
import NIOPosix

/// A task executor with a thread of its own, for code that blocks: a task that prefers it runs its nonisolated async
/// code there, awaits included, without hopping to other threads in between.
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

    func shutdown() async throws {
        try await group.shutdownGracefully()
    }
}
