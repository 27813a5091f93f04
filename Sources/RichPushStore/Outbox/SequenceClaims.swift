import Synchronization

/// The deliveries this process claimed in their notifications' sequences (``SQLOutbox/claimSequences(upTo:audiencePlatforms:withZones:in:)``)
/// and has not recorded yet, by claim, on an engine other processes claim from too (PostgreSQL).
///
/// A claim's row in `sequence_claims` leases its range of deliveries until the last one it gave out is recorded, and
/// goes in the transaction that records it. Which of them are still out is known here, by the process that records
/// them, rather than looked up in the range each time outcomes are recorded. A crash forgets it: the claim's lease
/// then runs out and its unrecorded deliveries are claimed again.
final class SequenceClaims: Sendable {
    private struct Outstanding {
        /// Delivery id → the claim that gave it out.
        var claimOf: [Int64: Int64] = [:]
        /// Claim id → how many of its deliveries are out.
        var count: [Int64: Int] = [:]
    }

    private let outstanding = Mutex(Outstanding())

    func hold(_ deliveryIds: [Int64], in claim: Int64) {
        outstanding.withLock { outstanding in
            for id in deliveryIds { outstanding.claimOf[id] = claim }
            outstanding.count[claim, default: 0] += deliveryIds.count
        }
    }

    /// The claims that have nothing out but `deliveryIds`. Memory is not changed: the transaction that records them
    /// may fail.
    func completed(by deliveryIds: [Int64]) -> [Int64] {
        outstanding.withLock { outstanding in
            var recorded: [Int64: Int] = [:]
            for id in deliveryIds {
                if let claim = outstanding.claimOf[id] { recorded[claim, default: 0] += 1 }
            }
            return recorded.compactMap { claim, count in count >= outstanding.count[claim, default: 0] ? claim : nil }.sorted()
        }
    }

    /// Lets go of `deliveryIds`, recorded.
    func finish(_ deliveryIds: some Sequence<Int64>) {
        outstanding.withLock { outstanding in
            for id in deliveryIds {
                guard let claim = outstanding.claimOf.removeValue(forKey: id) else { continue }
                let left = outstanding.count[claim, default: 1] - 1
                outstanding.count[claim] = left > 0 ? left : nil
            }
        }
    }

    /// The claims that gave out `deliveryIds`, those of them still out.
    func claims(of deliveryIds: some Sequence<Int64>) -> Set<Int64> {
        outstanding.withLock { outstanding in Set(deliveryIds.compactMap { outstanding.claimOf[$0] }) }
    }
}
