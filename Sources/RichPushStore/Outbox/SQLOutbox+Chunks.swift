public import Foundation
public import RichPushCore
import SQLKit

extension SQLOutbox {
    /// Deliveries written with their notification: the dispatcher's first claims, sent while the rest is written.
    static let firstOutboxChunk = 2_000
    /// Deliveries written per transaction after the first chunk: few enough that the dispatcher's claims, which wait
    /// for the writer between chunks on SQLite, are held up for some 20 ms at most, so the first pushes go out at
    /// nearly the full rate while the rest is written (50,000 held them up to 100 ms: 0.67x h2load from the POST
    /// against 0.70x); each chunk continues from where the last ended, so more chunks add only their commits.
    static let outboxChunk = 10_000
}
