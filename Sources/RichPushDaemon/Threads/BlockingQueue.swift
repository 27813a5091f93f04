import Glibc

/// A queue that one thread waits on while others add to it (a mutex and a condition variable).
final class BlockingQueue<Element>: @unchecked Sendable {
    // Allocated, not stored inline: a pthread mutex must never move, and Swift may move stored properties.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var items: [Element] = []
    private var closed = false

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func append(_ item: Element) {
        pthread_mutex_lock(mutex)
        items.append(item)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Wakes every waiter; ``take(waitingUpTo:)`` then returns what is left without waiting.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    var isClosed: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return closed
    }

    /// Everything queued, waiting up to `timeout` (forever when nil) for the first item unless the queue is closed.
    func take(waitingUpTo timeout: Duration?) -> [Element] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if items.isEmpty && !closed {
            if let timeout {
                var deadline = timespec()
                clock_gettime(CLOCK_MONOTONIC, &deadline)
                let (seconds, attoseconds) = timeout.components
                let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
                deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
                deadline.tv_nsec = nanoseconds % 1_000_000_000
                while items.isEmpty && !closed {
                    if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
                }
            } else {
                while items.isEmpty && !closed { pthread_cond_wait(condition, mutex) }
            }
        }
        defer { items.removeAll() }
        return items
    }
}
