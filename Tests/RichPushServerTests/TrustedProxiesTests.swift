import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import RichPushServer

@Suite("Clients behind a load balancer")
struct TrustedProxiesTests {
    let proxies = TrustedProxies(parsing: "10.0.0.0/8, 127.0.0.1, fd00::/8")!

    @Test func anUntrustedPeerIsTheClientWhateverItForwards() {
        #expect(proxies.clientAddress(peer: "203.0.113.9", forwardedFor: "198.51.100.1") == "203.0.113.9")
    }

    @Test func aTrustedPeerNamesTheClientNearestToIt() {
        // The leftmost entry is whatever the client sent; the balancer appended the address it saw.
        #expect(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: "6.6.6.6, 198.51.100.1") == "198.51.100.1")
        #expect(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: "198.51.100.1, 10.9.9.9") == "198.51.100.1")
        #expect(proxies.clientAddress(peer: "fd12::1", forwardedFor: "2001:db8::7") == "2001:db8::7")
    }

    @Test func aTrustedPeerWithoutForwardingIsTheClient() {
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "not-an-address") == "127.0.0.1")
    }

    @Test(arguments: ["10.0.0.0/33", "banana", "10.0.0.1/x"])
    func aListThatIsNotAddressesIsRefused(list: String) {
        #expect(TrustedProxies(parsing: list) == nil)
    }

    @Test func failedSignInsOfOneClientBehindTheBalancerDoNotThrottleAnother() async throws {
        let gateway = TestGateway { $0.trustedProxies = TrustedProxies(parsing: "127.0.0.1")! }
        try await gateway.run(.live) { session in
            let wrong = Credentials(username: "admin", password: "guessing-1")
            for _ in 0..<10 {
                let response = try await session.request(
                    .get, "/api/users/me", as: wrong, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.1"])
                #expect(response.status == .unauthorized)
            }
            let guesser = try await session.request(
                .get, "/api/users/me", as: .admin, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.1"])
            #expect(guesser.status == .tooManyRequests)
            let other = try await session.request(
                .get, "/api/users/me", as: .admin, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.2"])
            #expect(other.status == .ok)
        }
    }
}
