import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Basic authentication")
struct AuthenticationTests {
    @Test func aMissingAuthorizationHeaderIsChallenged() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/users/me")
            #expect(response.status == .unauthorized)
            #expect(response.headers[.wwwAuthenticate] == #"Basic realm="richpush""#)
            #expect(try response.error().code == "auth.required")
        }
    }

    @Test(arguments: [
        "Basic", "Basic !!!not-base64!!!", "Basic " + Data("no-colon".utf8).base64EncodedString(),
        "Basic " + Data(":nouser".utf8).base64EncodedString(), "Basic " + Data([0xff, 0xfe, 0x3a]).base64EncodedString(),
    ])
    func malformedAuthorizationHeadersAreChallenged(header: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/users/me", headers: [.authorization: header])
            #expect(response.status == .unauthorized)
            #expect(response.headers[.wwwAuthenticate] == #"Basic realm="richpush""#)
        }
    }

    @Test func aRefusedTokenIsChallengedAsBearerSoABrowserShowsNoPasswordBox() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/users/me", headers: [.authorization: "Bearer abc.def"])
            #expect(response.status == .unauthorized)
            #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="richpush", error="invalid_token""#)
        }
    }

    @Test func aWrongPasswordIsRefused() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/users/me", as: Credentials(username: "admin", password: "wrong-password"))
            #expect(response.status == .unauthorized)
            #expect(try response.error().message == "The username or password is wrong.")
        }
    }

    @Test func anUnknownUserIsRefusedLikeAWrongPassword() async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/users/me", as: Credentials(username: "nobody", password: "whatever-1"))
            #expect(response.status == .unauthorized)
            #expect(try response.error().message == "The username or password is wrong.")
        }
    }

    @Test func tenFailuresFromOneAddressThrottleThatAddressForTheUsernameWithRetryAfter() async throws {
        try await TestGateway().run { session in
            let wrong = Credentials(username: "admin", password: "wrong-password")
            for _ in 0..<10 {
                #expect(try await session.request(.get, "/api/users/me", as: wrong).status == .unauthorized)
            }
            let throttled = try await session.request(.get, "/api/users/me", as: wrong)
            #expect(throttled.status == .tooManyRequests)
            #expect(try throttled.error().code == "auth.throttled")
            let retryAfter = try #require(throttled.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 300)
            // From that address, the right password does not get through either: it would tell the guesser it is right.
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .tooManyRequests)
        }
    }

    @Test func aSignInRememberedBeforeTheGuessingStartedIsNotThrottled() async throws {
        try await TestGateway().run { session in
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .ok)
            let wrong = Credentials(username: "admin", password: "wrong-password")
            for _ in 0..<10 { _ = try await session.request(.get, "/api/users/me", as: wrong) }
            #expect(try await session.request(.get, "/api/users/me", as: wrong).status == .tooManyRequests)
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .ok)
        }
    }

    @Test(arguments: ["\u{0}zzzzzzzzz", "ab\u{0}cdefghij", "admin-secret-1\u{0}junk"])
    func aPasswordCutShortByANulDoesNotSignIn(password: String) async throws {
        try await TestGateway().run { session in
            let response = try await session.request(.get, "/api/users/me", as: Credentials(username: "admin", password: password))
            #expect(response.status == .unauthorized)
        }
    }

    @Test func malformedHeadersDoNotCountTowardsTheThrottle() async throws {
        try await TestGateway().run { session in
            for _ in 0..<15 {
                _ = try await session.request(.get, "/api/users/me", headers: [.authorization: "Basic !!!"])
            }
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .ok)
        }
    }

    @Test func aSuccessResetsTheFailureCount() async throws {
        try await TestGateway().run { session in
            let wrong = Credentials(username: "admin", password: "wrong-password")
            for _ in 0..<9 { _ = try await session.request(.get, "/api/users/me", as: wrong) }
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .ok)
            for _ in 0..<9 { _ = try await session.request(.get, "/api/users/me", as: wrong) }
            #expect(try await session.request(.get, "/api/users/me", as: .admin).status == .ok)
        }
    }
}
