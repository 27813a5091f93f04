import Foundation
import RichPushCore
import Testing

@Suite("Notification state")
struct NotificationStateTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    func state(_ tally: DeliveryTally, deliverIn: TimeInterval = -1, expiresIn: TimeInterval? = nil, canceled: Bool = false) -> NotificationState {
        NotificationState.derive(
            tally: tally, deliverAt: now + deliverIn, expiresAt: expiresIn.map { now + $0 }, canceled: canceled, now: now)
    }

    @Test func aFutureDeliveryIsScheduled() {
        #expect(state(DeliveryTally(pending: 3), deliverIn: 60) == .scheduled)
        #expect(state(DeliveryTally(), deliverIn: 60) == .scheduled)
    }

    @Test func outstandingDeliveriesMeanSending() {
        #expect(state(DeliveryTally(pending: 1, sent: 2)) == .sending)
    }

    @Test func everyDeliveryAcceptedIsDelivered() {
        #expect(state(DeliveryTally(sent: 3)) == .delivered)
    }

    @Test func noAddressedDeviceIsDelivered() {
        #expect(state(DeliveryTally()) == .delivered)
    }

    @Test func someFailedIsPartialAndAllFailedIsFailed() {
        #expect(state(DeliveryTally(sent: 1, failed: 1)) == .partial)
        #expect(state(DeliveryTally(failed: 2)) == .failed)
    }

    @Test func expiryWithOutstandingDeliveriesIsExpired() {
        #expect(state(DeliveryTally(pending: 1, sent: 1), expiresIn: -1) == .expired)
        #expect(state(DeliveryTally(sent: 1, expired: 1)) == .expired)
    }

    @Test func expiryAfterEverythingWasSentKeepsDelivered() {
        #expect(state(DeliveryTally(sent: 2), expiresIn: -1) == .delivered)
    }

    @Test func cancelingWins() {
        #expect(state(DeliveryTally(canceled: 2), deliverIn: 60, canceled: true) == .canceled)
    }
}
