import Crypto
import Foundation
import Testing

@testable import RichPushHubs

@Suite("APNs provider tokens")
struct APNsTokenProviderTests {
    let provider: APNsTokenProvider

    init() async throws {
        provider = try await APNsTokenProvider(privateKeyPEM: try P256Key.generatePEM(), keyId: "KEY0000001", teamId: "TEAM000001")
    }

    @Test func aTokenIsReusedForFiftyMinutesSoApnsSeesNoRefreshWithinTwenty() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try await provider.token(now: start)
        #expect(try await provider.token(now: start + 19 * 60) == first)
        #expect(try await provider.token(now: start + 49 * 60) == first)
    }

    @Test func aTokenIsReplacedBeforeItIsAnHourOld() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try await provider.token(now: start)
        let later = try await provider.token(now: start + 51 * 60)
        #expect(later != first)
        #expect(try claims(of: later)["iat"] as? Int == 1_800_000_000 + 51 * 60)
    }

    @Test func theTokenNamesTheKeyAndTheTeamAndIsSignedWithES256() async throws {
        let token = try await provider.token(now: Date(timeIntervalSince1970: 1_800_000_000))
        let header = try part(0, of: token)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "KEY0000001")
        #expect(try claims(of: token)["iss"] as? String == "TEAM000001")
        #expect(try claims(of: token)["iat"] as? Int == 1_800_000_000)
    }

    @Test func anExpiredTokenIsReplacedOnceHoweverManyRequestsReportIt() async throws {
        let first = try await provider.token()
        await provider.expire(first)
        let second = try await provider.token()
        await provider.expire(first)
        #expect(second != first)
        #expect(try await provider.token() == second)
    }

    private func claims(of token: String) throws -> [String: Any] { try part(1, of: token) }

    private func part(_ index: Int, of token: String) throws -> [String: Any] {
        var text = String(token.split(separator: ".")[index]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

enum P256Key {
    /// A new `.p8`-style PEM key, as Apple's developer portal hands out.
    static func generatePEM() throws -> String {
        P256.Signing.PrivateKey().pemRepresentation
    }
}
