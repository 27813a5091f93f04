/// `GET /health` (`ok`) and `GET /health/ready` (`ready`).
public struct HealthJSON: Codable, Sendable, Equatable {
    public var status: String

    public init(status: String) {
        self.status = status
    }
}
