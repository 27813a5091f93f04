import Foundation

/// What one answer of a token-authorized hub (APNs, FCM) means for a delivery.
enum HubVerdict: Equatable {
    case sent
    /// The hub refused the bearer credential as expired: get a new one and send again, once.
    case credentialRejected
    /// The device will never accept this push: stop sending to it until it registers again.
    case deviceGone(code: String, message: String)
    /// Nothing a device can fix: every other push of the batch would fail the same way.
    case configuration(code: String, message: String)
    case retry(after: TimeInterval, code: String, message: String)
    case failed(code: String, message: String)
}
