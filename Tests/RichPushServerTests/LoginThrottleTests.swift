import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

@Suite("Login throttling")
struct LoginThrottleTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func nineFailuresOfAPairDoNotThrottleIt() {
        let throttle = LoginThrottle()
        for second in 0..<9 { throttle.recordFailure(username: "a", address: "1", now: start + Double(second)) }
        #expect(throttle.retryAfter(username: "a", address: "1", now: start + 10) == nil)
    }

    @Test func theTenthFailureThrottlesThePairUntilTheOldestLeavesTheWindow() {
        let throttle = LoginThrottle()
        for second in 0..<10 { throttle.recordFailure(username: "a", address: "1", now: start + Double(second)) }
        #expect(throttle.retryAfter(username: "a", address: "1", now: start + 10) == 290)
    }

    @Test func aGuesserCannotLockTheUserOutFromAnotherAddress() {
        let throttle = LoginThrottle()
        for second in 0..<50 { throttle.recordFailure(username: "alice", address: "6.6.6.6", now: start + Double(second)) }
        #expect(throttle.retryAfter(username: "alice", address: "6.6.6.6", now: start + 60) != nil)
        #expect(throttle.retryAfter(username: "alice", address: "10.0.0.1", now: start + 60) == nil)
    }

    @Test func refusedAttemptsDoNotExtendTheWait() {
        let throttle = LoginThrottle()
        for _ in 0..<10 { throttle.recordFailure(username: "a", address: "1", now: start) }
        for second in 1..<200 { _ = throttle.retryAfter(username: "a", address: "1", now: start + Double(second)) }
        #expect(throttle.retryAfter(username: "a", address: "1", now: start + 200) == 100)
        #expect(throttle.retryAfter(username: "a", address: "1", now: start + 301) == nil)
    }

    @Test func anAddressGuessingAcrossAHundredUsernamesIsThrottledForEveryName() {
        let throttle = LoginThrottle()
        for index in 0..<99 { throttle.recordFailure(username: "user\(index)", address: "10.0.0.1", now: start) }
        #expect(throttle.retryAfter(username: "fresh", address: "10.0.0.1", now: start + 1) == nil)
        throttle.recordFailure(username: "user99", address: "10.0.0.1", now: start)
        #expect(throttle.retryAfter(username: "fresh", address: "10.0.0.1", now: start + 1) == 299)
        #expect(throttle.retryAfter(username: "fresh", address: "10.0.0.2", now: start + 1) == nil)
    }

    @Test func aSuccessClearsItsPairButNotTheAddress() {
        let throttle = LoginThrottle(pairLimit: 10, addressLimit: 20)
        for index in 0..<19 { throttle.recordFailure(username: index < 9 ? "a" : "b\(index)", address: "1", now: start) }
        throttle.recordSuccess(username: "a", address: "1")
        throttle.recordFailure(username: "a", address: "1", now: start)
        #expect(throttle.retryAfter(username: "a", address: "1", now: start + 1) == 299)
        throttle.recordSuccess(username: "a", address: "1")
        #expect(throttle.retryAfter(username: "c", address: "1", now: start + 1) == 299)
    }
}

@Suite("Credential cache")
struct CredentialCacheTests {
    let alice = AuthenticatedUser(username: "alice", role: .member)

    let right = "Basic " + Data("alice:right".utf8).base64EncodedString()

    @Test func theVerifiedPasswordHits() {
        let cache = CredentialCache()
        cache.store(right, user: alice, proof: .password(hash: "$2b$hash"))
        guard case .hit(let user) = cache.lookup(right) else { Issue.record("expected a hit"); return }
        #expect(user == alice)
    }

    @Test func aWrongPasswordNeverHits() {
        let cache = CredentialCache()
        let wrong = "Basic " + Data("alice:wrong".utf8).base64EncodedString()
        cache.store(right, user: alice, proof: .password(hash: "$2b$hash"))
        guard case .miss = cache.lookup(wrong) else { Issue.record("a wrong password hit the cache"); return }
    }

    @Test func anEntryMustBeRecheckedAfterTheRevalidationInterval() {
        let cache = CredentialCache(revalidateAfter: 2)
        let credentials = right
        let now = Date.now
        cache.store(credentials, user: alice, proof: .password(hash: "$2b$hash"), now: now)
        guard case .stale(let entry) = cache.lookup(credentials, now: now + 3) else { Issue.record("expected stale"); return }
        #expect(entry.proof == .password(hash: "$2b$hash"))
    }

    @Test func aTokenPastItsExpiryMustBeRecheckedAtOnce() {
        let cache = CredentialCache(revalidateAfter: 2)
        let now = Date.now
        cache.store("Bearer rp_x", user: alice, proof: .token(secretDigest: "d", expiresAt: now + 1), now: now)
        guard case .hit = cache.lookup("Bearer rp_x", now: now + 0.5) else { Issue.record("expected a hit"); return }
        guard case .stale = cache.lookup("Bearer rp_x", now: now + 1) else { Issue.record("an expired token hit the cache"); return }
    }

    @Test func aHeaderKeepsItsKeyForTheLifeOfTheProcess() {
        let cache = CredentialCache()
        let first = cache.key(right)
        _ = cache.key("Bearer rp_other")
        #expect(cache.key(right) == first)
    }

    @Test func eachProcessKeysAHeaderWithItsOwnSalt() {
        #expect(CredentialCache().key(right) != CredentialCache().key(right))
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

    @Test(arguments: ["\u{0}zzzzzzzzz", "ab\u{0}cdefghij", "alice-password\u{0}junk", "tab\there-ok?", "line\nbreak-1", "del\u{7f}eted-1"])
    func passwordsWithControlCharactersAreRefused(password: String) {
        #expect(PasswordHasher.problem(with: password) != nil)
    }

    @Test func aPasswordWithANulNeverMatchesTheHashOfWhatPrecedesIt() async throws {
        let hash = try await PasswordHasher(cost: 4).hash("alice-password")
        #expect(!(try await PasswordHasher(cost: 4).verify("alice-password\u{0}junk", hash: hash)))
        await #expect(throws: UnusablePassword.self) { try await PasswordHasher(cost: 4).hash("ab\u{0}cdefghij") }
    }
}
