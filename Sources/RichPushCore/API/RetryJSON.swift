/// `POST /api/notifications/{id}/retry`: how many failed deliveries are pending again.
public struct RetryJSON: Codable, Sendable, Equatable {
    public var retried: Int

    public init(retried: Int) {
        self.retried = retried
    }
}
