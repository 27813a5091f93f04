import AsyncHTTPClient
import Foundation
import JWTKit
import RichPushCore

/// OAuth 2.0 access tokens for FCM, obtained with the service account's RS256-signed assertion at its `token_uri`.
enum FCMAccessTokens {
    struct Assertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    static func make(account: ServiceAccount, client: HTTPClient) async throws(HubConfigurationError) -> OAuthAccessTokens {
        let key: Insecure.RSA.PrivateKey
        do {
            key = try Insecure.RSA.PrivateKey(pem: account.privateKey)
        } catch {
            throw HubConfigurationError("\(ServeHubSettings.fcmServiceAccountFile.name): private_key is not a PEM RSA private key")
        }
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256)
        return OAuthAccessTokens(endpoint: account.tokenURI, client: client, credentialName: "the service account") { now in
            let issuedAt = Int(now.timeIntervalSince1970)
            let assertion = try await keys.sign(
                Assertion(iss: account.clientEmail, scope: scope, aud: account.tokenURI, iat: issuedAt, exp: issuedAt + 3600))
            return OAuthAccessTokens.form(["grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion])
        }
    }
}
