import Foundation

/// The username and password of an `Authorization: Basic …` header.
///
/// Parsed here rather than by HummingbirdAuth's `HTTPFields.basic`, which takes the scheme only when spelled `Basic`
/// followed by exactly one space: RFC 9110 makes the scheme case-insensitive and allows more whitespace, and clients
/// that write `basic` exist.
struct BasicCredentials: Sendable, Equatable {
    var username: String
    var password: String

    /// Parses the header value; nil for anything that is not well-formed Basic credentials.
    init?(authorization header: String) {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        let username = String(text[..<colon])
        guard !username.isEmpty else { return nil }
        self.username = username
        self.password = String(text[text.index(after: colon)...])
    }
}
