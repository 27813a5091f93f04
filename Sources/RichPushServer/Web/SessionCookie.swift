import Crypto
import Foundation
import HTTPTypes
import RichPushCore

/// The browser session's cookie (`richpush_session`) and the CSRF value that goes with it.
///
/// The cookie holds an API token made for the session; the CSRF value is derived from it, so any process of the
/// gateway checks it without storing anything more, and a page that cannot read the cookie (no page can: it is
/// `HttpOnly`, and other sites' pages never see it) cannot make the value either.
enum SessionCookie {
    static let name = "richpush_session"
    static let csrfHeader = HTTPField.Name("X-Richpush-CSRF")!
    /// How long a session lasts unless signed out: a working week of a console left open.
    static let lifetime: TimeInterval = 7 * 86_400

    /// The session token in a request's `Cookie` header; nil when it holds none of the form tokens have.
    static func token(in cookies: String?) -> String? {
        guard let cookies else { return nil }
        for pair in cookies.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == name, APIToken.looksLikeToken(parts[1]) { return parts[1] }
        }
        return nil
    }

    /// The value a request changing something with the cookie sends as `X-Richpush-CSRF`.
    static func csrf(for token: String) -> String {
        Data(SHA256.hash(data: Data("richpush-csrf:\(token)".utf8))).base64URLEncodedString()
    }

    /// `Set-Cookie` for a new session of `token` lasting `seconds`, `Secure` over HTTPS.
    static func setting(_ token: String, seconds: Int, secure: Bool) -> String {
        "\(name)=\(token); Max-Age=\(seconds); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// `Set-Cookie` that removes the cookie.
    static func clearing(secure: Bool) -> String { setting("", seconds: 0, secure: secure) }

    /// Whether a request of `method` changes something, and so needs the CSRF value beside the cookie.
    static func changesState(_ method: HTTPRequest.Method) -> Bool { ![.get, .head, .options].contains(method) }
}
