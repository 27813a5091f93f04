/// `POST /api/me/notifications/{id}/receipts`: the receipt as recorded (201 the first time, 200 again).
public struct ReceiptJSON: Codable, Sendable, Equatable {
    public var notificationId: Int64
    public var installationId: String
    public var event: ReceiptEvent

    public init(notificationId: Int64, installationId: String, event: ReceiptEvent) {
        self.notificationId = notificationId
        self.installationId = installationId
        self.event = event
    }
}
