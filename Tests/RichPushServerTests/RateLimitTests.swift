import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RichPushCore
import Testing

@testable import RichPushServer

@Suite("Rate limiting: token buckets")
struct RateLimiterTests {
    let start = ContinuousClock.now

    @Test func aClientBurstsToTheLimitAndIsThenToldHowLongToWait() {
        let limiter = RateLimiter(perMinute: 3)
        #expect((0..<3).map { _ in limiter.take("alice", now: start) } == [nil, nil, nil])
        #expect(limiter.take("alice", now: start) == 20)
    }

    @Test func theBucketRefillsAtTheLimitPerMinute() {
        let limiter = RateLimiter(perMinute: 60)
        for _ in 0..<60 { _ = limiter.take("alice", now: start) }
        #expect(limiter.take("alice", now: start + .milliseconds(500)) == 1)
        #expect(limiter.take("alice", now: start + .seconds(2)) == nil)
        #expect(limiter.take("alice", now: start + .seconds(2)) == nil)
        #expect(limiter.take("alice", now: start + .seconds(2)) != nil)
    }

    @Test func eachKeyHasItsOwnBucket() {
        let limiter = RateLimiter(perMinute: 1)
        #expect(limiter.take("alice", now: start) == nil)
        #expect(limiter.take("bob", now: start) == nil)
        #expect(limiter.take("alice", now: start) != nil)
    }

    @Test func aFloodOfKeysDropsTheFullBucketsFirst() {
        let limiter = RateLimiter(perMinute: 2, maximumKeys: 3)
        _ = limiter.take("busy", now: start)
        _ = limiter.take("busy", now: start)
        _ = limiter.take("a", now: start)
        _ = limiter.take("b", now: start)
        // "a" and "b" are still below capacity here; a minute later they are full and go, "busy" stays empty.
        _ = limiter.take("c", now: start + .seconds(60))
        #expect(limiter.take("busy", now: start + .seconds(60)) == nil)
    }
}

@Suite("Rate limits on the API")
struct RateLimitTests {
    @Test func aUserPastTheLimitGets429WithRetryAfterAndOthersGoOn() async throws {
        try await TestGateway { $0.rateLimit = 3 }.run { session in
            let alice = try await session.createUser("alice")
            let bob = try await session.createUser("bob")
            for _ in 0..<3 { #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok) }
            let refused = try await session.request(.get, "/api/users/me", as: alice)
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.error().code == "rate.limited")
            // 20 s for one request at 3 a minute, less the time the test took to get here.
            #expect((1...20).contains(Int(refused.headers[.retryAfter] ?? "") ?? 0))
            #expect(try await session.request(.get, "/api/users/me", as: bob).status == .ok)
        }
    }

    @Test func payloadFetchesAreNotCounted() async throws {
        try await TestGateway { $0.rateLimit = 2 }.run { session in
            let alice = try await session.createUser("alice")
            try await session.register("phone", of: alice)
            let id = try await session.send(#"{"message":"m","richType":"text","text":"t","audience":"username:alice"}"#, as: .admin)
            for _ in 0..<5 { #expect(try await session.request(.get, "/api/notifications/\(id)", as: alice).status == .ok) }
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
        }
    }

    @Test func openingStreamsIsNotCountedButStillNeedsCredentials() async throws {
        try await TestGateway { $0.rateLimit = 2 }.run { session in
            let alice = try await session.createUser("alice")
            // An installation of another platform has no stream: each attempt is answered at once, uncharged.
            try await session.register("phone", of: alice, platform: .apns)
            for _ in 0..<5 {
                #expect(try await session.request(.get, "/api/me/stream?installationId=phone", as: alice).status == .unprocessableContent)
            }
            #expect(try await session.request(.get, "/api/me/stream?installationId=phone").status == .unauthorized)
            #expect(try await session.request(.get, "/api/users/me", as: alice).status == .ok)
        }
    }

    @Test func requestsWithoutValidCredentialsAreLimitedByAddress() async throws {
        try await TestGateway { $0.rateLimit = 10 }.run { session in
            #expect(try await session.request(.get, "/api/users/me").status == .unauthorized)
            let refused = try await session.request(.get, "/api/users/me", as: Credentials(username: "nobody", password: "wrong-password"))
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.error().code == "rate.limited")
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .ok)
        }
    }

    @Test func aSenderPastTheSendLimitGets429AndNothingIsCreated() async throws {
        try await TestGateway { $0.sendRateLimit = 2 }.run { session in
            let mark = try await session.createUser("mark", role: .marketer)
            let json = #"{"message":"m","richType":"text","text":"t","audience":"topic:sale"}"#
            for _ in 0..<2 { _ = try await session.send(json, as: mark) }
            let refused = try await session.request(.post, "/api/notifications", as: mark, json: json)
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.error().code == "rate.limited")
            let list = try await session.request(.get, "/api/notifications", as: mark).json()
            #expect((list["items"] as? [Any])?.count == 2)
        }
    }

    @Test func aLimitOfZeroIsNoLimit() async throws {
        try await TestGateway { $0.rateLimit = 0 }.run { session in
            var statuses: Set<HTTPResponse.Status> = []
            for _ in 0..<700 { statuses.insert(try await session.request(.get, "/api/users/me", as: .admin).status) }
            #expect(statuses == [.ok])
        }
    }
}
