import RichPushCore
import Synchronization

/// Outcomes the hubs answered that the store has not recorded yet, kept by the batch they belong to.
///
/// A hub tells most outcomes as their answers arrive, before its batch is back; the rest come with the batch. On an
/// exclusive store the next claim records whatever is in hand in its transaction, on a shared one the dispatcher
/// records it as each batch goes out and as the last one out comes back, and while batches are out it also records
/// it every ``window`` on its own. A crash then sends again only the pushes still in flight and those answered in the
/// last moments, however long a slow hub keeps a batch out.
final class AnsweredDeliveries: Sendable {
    private struct State {
        /// Batches out, and those back whose outcomes are not all taken yet.
        var batches: [AnsweredBatch] = []
        /// Outcomes a failed transaction could not record, to go with the next one.
        var givenBack: [SentDelivery] = []
        /// Outcomes taken by records still running.
        var recording = 0
    }

    private let state = Mutex(State())
    /// Rung when a batch goes out and when the last batch out comes back; closed when the dispatcher is done.
    let departures = Doorbell()
    /// Rung when a record of outcomes ends.
    let records = Doorbell()
    let window: Duration

    init(window: Duration) {
        self.window = window
    }

    /// Keeps the outcomes of `jobs`, a batch about to go out.
    func sending(_ jobs: [DeliveryJob]) -> AnsweredBatch {
        let batch = AnsweredBatch(jobs)
        state.withLock { $0.batches.append(batch) }
        departures.ring()
        return batch
    }

    /// `batch` is back with every job's outcome, in the batch's order. When it was the last one out, the recorder is
    /// rung: a fan-out's last outcomes are recorded as its last answer arrives, not at the next window.
    func back(_ batch: AnsweredBatch, _ outcomes: [DeliveryOutcome]) {
        batch.back(outcomes)
        if state.withLock({ $0.batches.allSatisfy(\.isBack) }) { departures.ring() }
    }

    /// Whether no batch is out and every outcome was taken.
    var isIdle: Bool { state.withLock { $0.batches.isEmpty && $0.givenBack.isEmpty } }

    /// Takes every outcome in hand, to be recorded now.
    func take() -> [SentDelivery] {
        state.withLock { state in
            var taken = state.givenBack
            state.givenBack = []
            state.batches.removeAll { batch in batch.take(into: &taken) }
            return taken
        }
    }

    /// Takes every outcome in hand for a record of its own, which reports its end with ``recordEnded(_:)``.
    func takeForRecord() -> [SentDelivery] {
        let taken = take()
        state.withLock { $0.recording += taken.count }
        return taken
    }

    /// A record of `count` outcomes taken with ``takeForRecord()`` ended, written or given back.
    func recordEnded(_ count: Int) {
        state.withLock { $0.recording -= count }
        records.ring()
    }

    /// Outcomes the hubs answered that are not recorded yet: in hand, given back, or in a record still running.
    var unrecorded: Int {
        state.withLock { state in state.givenBack.count + state.recording + state.batches.reduce(0) { $0 + $1.untakenCount } }
    }

    /// Gives back outcomes taken for a transaction that failed, to go with the next one.
    func giveBack(_ deliveries: [SentDelivery]) {
        guard !deliveries.isEmpty else { return }
        state.withLock { $0.givenBack.insert(contentsOf: deliveries, at: 0) }
    }
}

/// The outcomes of one batch: told one by one while it is out, the rest when it is back.
///
/// A hub tells an outcome on its connection's event loop, so telling costs a position and an outcome under a lock;
/// the delivery it belongs to is paired with it only when taken.
final class AnsweredBatch: Sendable {
    private struct State {
        var outcomes: [DeliveryOutcome?]
        /// Positions whose outcome is in hand and not taken yet.
        var untaken: [Int] = []
        var isBack = false
    }

    private let jobs: [DeliveryJob]
    private let state: Mutex<State>

    fileprivate init(_ jobs: [DeliveryJob]) {
        self.jobs = jobs
        state = Mutex(State(outcomes: Array(repeating: nil, count: jobs.count)))
    }

    /// The job at `position` in the batch ended with `outcome`, before the batch is back.
    func told(_ position: Int, _ outcome: DeliveryOutcome) {
        state.withLock { state in
            state.outcomes[position] = outcome
            state.untaken.append(position)
        }
    }

    /// The batch is back with every job's outcome, in the batch's order: those not told before are kept.
    fileprivate func back(_ outcomes: [DeliveryOutcome]) {
        state.withLock { state in
            for (position, outcome) in outcomes.enumerated() where state.outcomes[position] == nil {
                state.outcomes[position] = outcome
                state.untaken.append(position)
            }
            state.isBack = true
        }
    }

    fileprivate var isBack: Bool { state.withLock { $0.isBack } }

    /// How many outcomes are in hand and not taken yet.
    fileprivate var untakenCount: Int { state.withLock { $0.untaken.count } }

    /// Moves the untaken outcomes to `taken`; says whether the batch is back and has nothing more to give.
    fileprivate func take(into taken: inout [SentDelivery]) -> Bool {
        state.withLock { state in
            for position in state.untaken { taken.append((jobs[position], state.outcomes[position]!)) }
            state.untaken = []
            return state.isBack
        }
    }
}
