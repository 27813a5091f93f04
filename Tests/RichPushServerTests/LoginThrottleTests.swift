import Foundation
import Testing

@testable import RichPushServer

@Suite("Login throttling")
struct LoginThrottleTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func nineFailuresDoNotBlock() {
        let throttle = LoginThrottle()
        for second in 0..<9 { throttle.recordFailure(username: "a", address: "1", now: start + Double(second)) }
        #expect(throttle.retryAfter(username: "a", address: "2", now: start + 10) == nil)
    }

    @Test func theTenthFailureBlocksUntilTheOldestLeavesTheWindow() {
        let throttle = LoginThrottle()
        for second in 0..<10 { throttle.recordFailure(username: "a", address: "1", now: start + Double(second)) }
        #expect(throttle.retryAfter(username: "a", address: "9", now: start + 10) == 290)
    }

    @Test func theAddressIsThrottledAcrossUsernames() {
        let throttle = LoginThrottle()
        for index in 0..<10 { throttle.recordFailure(username: "user\(index)", address: "10.0.0.1", now: start) }
        #expect(throttle.retryAfter(username: "fresh", address: "10.0.0.1", now: start + 1) != nil)
        #expect(throttle.retryAfter(username: "fresh", address: "10.0.0.2", now: start + 1) == nil)
    }

    @Test func theWaitGrowsWhileAttemptsContinue() {
        let throttle = LoginThrottle()
        for second in 0..<10 { throttle.recordFailure(username: "a", address: "1", now: start + Double(second)) }
        let first = throttle.retryAfter(username: "a", address: "1", now: start + 20)!
        for second in 21..<40 { _ = throttle.retryAfter(username: "a", address: "1", now: start + Double(second)) }
        let later = throttle.retryAfter(username: "a", address: "1", now: start + 40)!
        #expect(later > first)
    }

    @Test func theBlockEndsWhenFailuresAgeOut() {
        let throttle = LoginThrottle()
        for _ in 0..<10 { throttle.recordFailure(username: "a", address: "1", now: start) }
        #expect(throttle.retryAfter(username: "a", address: "1", now: start + 301) == nil)
    }

    @Test func aSuccessClearsBothKeys() {
        let throttle = LoginThrottle()
        for _ in 0..<9 { throttle.recordFailure(username: "a", address: "1", now: start) }
        throttle.recordSuccess(username: "a", address: "1")
        throttle.recordFailure(username: "a", address: "1", now: start)
        #expect(throttle.retryAfter(username: "a", address: "1", now: start + 1) == nil)
    }
}

@Suite("Credential cache")
struct CredentialCacheTests {
    let alice = AuthenticatedUser(username: "alice", role: .member)

    let right = "Basic " + Data("alice:right".utf8).base64EncodedString()

    @Test func theVerifiedPasswordHits() {
        let cache = CredentialCache()
        cache.store(right, user: alice, passwordHash: "$2b$hash")
        guard case .hit(let user) = cache.lookup(right) else { Issue.record("expected a hit"); return }
        #expect(user == alice)
    }

    @Test func aWrongPasswordNeverHits() {
        let cache = CredentialCache()
        let wrong = "Basic " + Data("alice:wrong".utf8).base64EncodedString()
        cache.store(right, user: alice, passwordHash: "$2b$hash")
        guard case .miss = cache.lookup(wrong) else { Issue.record("a wrong password hit the cache"); return }
    }

    @Test func anEntryMustBeRecheckedAfterTheRevalidationInterval() {
        let cache = CredentialCache(revalidateAfter: 2)
        let credentials = right
        let now = Date.now
        cache.store(credentials, user: alice, passwordHash: "$2b$hash", now: now)
        guard case .stale(let entry) = cache.lookup(credentials, now: now + 3) else { Issue.record("expected stale"); return }
        #expect(entry.passwordHash == "$2b$hash")
    }

    @Test func passwordsContainingColonsKeepEverythingAfterTheFirst() {
        let credentials = BasicCredentials(authorization: "Basic " + Data("alice:pa:ss".utf8).base64EncodedString())
        #expect(credentials?.username == "alice")
        #expect(credentials?.password == "pa:ss")
    }
}

@Suite("Password hashing")
struct PasswordHasherTests {
    @Test func theGatewayHashesAtCost10ByDefault() async throws {
        #expect(ServerConfiguration().bcryptCost == 10)
        let hash = try await PasswordHasher().hash("correct horse")
        #expect(hash.hasPrefix("$2b$10$"))
        #expect(try await PasswordHasher().verify("correct horse", hash: hash))
        #expect(!(try await PasswordHasher().verify("wrong horse", hash: hash)))
    }

    @Test(arguments: ["short", String(repeating: "x", count: 73)])
    func passwordsOutsideBcryptsRangeAreRefused(password: String) {
        #expect(PasswordHasher.problem(with: password) != nil)
    }
}
