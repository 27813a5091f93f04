import RichPushCore
import Synchronization

/// The first configuration failure of one batch: every job after it fails the same way without being sent.
final class BatchAbort: Sendable {
    private let outcome = Mutex<DeliveryOutcome?>(nil)

    var failure: DeliveryOutcome? { outcome.withLock { $0 } }

    func abort(with failure: DeliveryOutcome) {
        outcome.withLock { if $0 == nil { $0 = failure } }
    }
}
