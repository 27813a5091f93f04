import CLinux
import Glibc

/// A plain POSIX thread for the daemon's blocking work (the stream, the reports): libcurl and libdbus block, and a
/// blocked thread of Swift's cooperative pool would stall every task on this two-core budget.
final class WorkerThread {
    private var thread = pthread_t()
    private var joined = false

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    init(name: String, _ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(
            Body({
                _ = rp_name_this_thread(String(name.prefix(15)))
                body()
            })
        ).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                body.run()
                return nil
            }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    /// Waits for the thread's body to return.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
