public import Foundation

/// The web origins whose pages may call the API and open streams with credentials (`--cors-origins`): answered with
/// `Access-Control-Allow-Origin` naming them, never `*`, since every call they make carries credentials.
public struct CORSPolicy: Sendable, Equatable {
    /// Origins as browsers send them: scheme, host and a port other than the scheme's, lower-cased.
    public let origins: Set<String>

    public init(origins: Set<String> = []) {
        self.origins = origins
    }

    /// Comma-separated origins such as `https://app.example.com,http://localhost:3000`; nil for anything that is
    /// not one (a path, a wildcard, another scheme).
    public init?(parsing text: String) {
        var origins: Set<String> = []
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            guard let origin = Self.origin(item) else { return nil }
            origins.insert(origin)
        }
        guard !origins.isEmpty else { return nil }
        self.origins = origins
    }

    /// Whether a request's `Origin` header is one of them.
    func allows(_ origin: String) -> Bool { origins.contains(origin.lowercased()) }

    private static func origin(_ text: String) -> String? {
        let text = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host?.lowercased(), !host.isEmpty, !host.contains("*"), url.path.isEmpty, url.query == nil, url.fragment == nil,
            url.user == nil
        else { return nil }
        let port = url.port.map { ($0 == 80 && scheme == "http") || ($0 == 443 && scheme == "https") ? "" : ":\($0)" } ?? ""
        return "\(scheme)://\(text.contains("://[") ? "[\(host)]" : host)\(port)"
    }
}
