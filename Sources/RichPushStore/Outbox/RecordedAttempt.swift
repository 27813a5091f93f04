import RichPushCore

/// An attempt's outcome with what recording it needs of its job, read once where the outbox or the fallback queue is
/// called. Their entries are generic over the job's type and, reached from another module, run unspecialized: each
/// pass over a batch of whole jobs (a job carries its push) copied every job through its value witnesses, and
/// recording a batch made six such passes.
struct RecordedAttempt: DeliveryAttempt {
    let deliveryId: Int64
    let notificationId: Int64
    let attempt: Int
    let installationId: String
    let owner: String
    let platform: Platform
    let outcome: DeliveryOutcome

    init(_ job: some DeliveryAttempt, _ outcome: DeliveryOutcome) {
        deliveryId = job.deliveryId
        notificationId = job.notificationId
        attempt = job.attempt
        installationId = job.installationId
        owner = job.owner
        platform = job.platform
        self.outcome = outcome
    }
}

extension [RecordedAttempt] {
    init<Attempt: DeliveryAttempt>(_ results: [(job: Attempt, outcome: DeliveryOutcome)]) {
        self = results.map { RecordedAttempt($0.job, $0.outcome) }
    }

    var deliveryIds: [Int64] { map(\.deliveryId) }
}
