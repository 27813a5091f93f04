import Crypto
import Foundation

/// The secret of an API token: `rp_` and 256 random bits in base64url. Only its SHA-256 is stored; a database leak
/// yields no token that works, and checking one costs a hash, not a bcrypt, since the secret is too long to guess.
enum APIToken {
    static let prefix = "rp_"

    static func generate() -> String {
        prefix + LinkSigner.makeSecret()
    }

    /// Whether `text` has a token's form, so a Basic password that does not is never looked up as one.
    static func looksLikeToken(_ text: String) -> Bool {
        text.hasPrefix(prefix) && text.utf8.count == prefix.utf8.count + 43
    }

    /// The digest the store keeps, hex.
    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The token of an `Authorization: Bearer …` header; nil for any other scheme.
    static func bearer(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
