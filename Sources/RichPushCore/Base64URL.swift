#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Base64url without padding (RFC 4648 §5), as signed links, API tokens, VAPID keys and Web Push keys are written.
extension Data {
    public func base64URLEncodedString() -> String {
        String(
            base64EncodedString().compactMap { character -> Character? in
                switch character {
                case "+": "-"
                case "/": "_"
                case "=": nil
                default: character
                }
            })
    }

    /// Decodes base64url with or without padding; nil for anything else.
    public init?(base64URLEncoded text: String) {
        var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
