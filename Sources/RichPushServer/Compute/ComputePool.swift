import NIOCore
import NIOPosix

/// Threads for CPU-heavy work (bcrypt, decoding every row of an uploaded PNG).
///
/// It is separate from NIO's shared pool, which SQLite's queries run on: a burst of sign-ins or uploads must
/// not queue the database behind tens of milliseconds of hashing each.
enum ComputePool {
    static let shared: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()
}
