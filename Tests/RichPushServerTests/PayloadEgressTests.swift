import Foundation
import GatewayTesting
import Testing

@testable import RichPushServer

@Suite("The payloads' egress over the last second")
struct PayloadEgressTests {
    @Test func bytesCountForOneSecondAfterTheyAreSent() {
        let clock = AdvancedWallClock(stopped: true)
        let egress = PayloadEgress(clock: clock)
        egress.add(1000)
        clock.advance(by: 0.5)
        egress.add(500)
        #expect(egress.bytesPerSecond == 1500)
        clock.advance(by: 0.6)
        #expect(egress.bytesPerSecond == 500)
        clock.advance(by: 5)
        #expect(egress.bytesPerSecond == 0)
    }
}
