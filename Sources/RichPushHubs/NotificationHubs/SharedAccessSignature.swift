import Crypto
import Foundation
import RichPushCore
import Synchronization

/// A Notification Hubs namespace's full-access connection string:
/// `Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=…;SharedAccessKey=…`.
struct ConnectionString: Sendable, Equatable {
    /// `<namespace>.servicebus.windows.net`
    var host: String
    var keyName: String
    var key: String

    init(_ text: String) throws(HubConfigurationError) {
        var fields: [String: String] = [:]
        for part in text.split(separator: ";") where !part.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let equals = part.firstIndex(of: "=") else {
                throw HubConfigurationError("\(ServeHubSettings.notificationHubsConnectionString.name): '\(part.prefix(40))' is not name=value")
            }
            fields[part[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = String(part[part.index(after: equals)...])
        }
        guard let endpoint = fields["endpoint"], let url = URL(string: endpoint), let host = url.host, !host.isEmpty else {
            throw HubConfigurationError(
                "\(ServeHubSettings.notificationHubsConnectionString.name): it has no Endpoint=sb://<namespace>.servicebus.windows.net/")
        }
        guard let keyName = fields["sharedaccesskeyname"], !keyName.isEmpty, let key = fields["sharedaccesskey"], !key.isEmpty else {
            throw HubConfigurationError("\(ServeHubSettings.notificationHubsConnectionString.name): it needs SharedAccessKeyName and SharedAccessKey")
        }
        self.host = host
        self.keyName = keyName
        self.key = key
    }
}

/// Signs Notification Hubs requests: `SharedAccessSignature sr=…&sig=…&se=…&skn=…`, an HMAC-SHA256 over the
/// URL-encoded resource URI and the expiry, with the key's text as the HMAC key (as Azure's SDKs do).
final class SharedAccessSignature: Sendable {
    /// Azure's SDKs sign for an hour; a token is replaced five minutes before it lapses.
    static let lifetime: TimeInterval = 3600
    static let renewalMargin: TimeInterval = 300

    /// `https://<namespace>.servicebus.windows.net/<hub>`, lower-cased: what is signed, wherever requests go.
    let resourceURI: String
    private let keyName: String
    private let key: SymmetricKey
    private let current = Mutex<(header: String, expiry: Int64)?>(nil)

    init(connection: ConnectionString, hub: String) {
        self.resourceURI = "https://\(connection.host)/\(hub)".lowercased()
        self.keyName = connection.keyName
        self.key = SymmetricKey(data: Data(connection.key.utf8))
    }

    /// The `Authorization` header value, reused while it has more than the renewal margin left.
    func authorization(now: Date = .now) -> String {
        current.withLock { current in
            if let current, Double(current.expiry) - now.timeIntervalSince1970 > Self.renewalMargin { return current.header }
            let expiry = Int64(now.timeIntervalSince1970 + Self.lifetime)
            let header = Self.header(resourceURI: resourceURI, keyName: keyName, key: key, expiry: expiry)
            current = (header, expiry)
            return header
        }
    }

    static func header(resourceURI: String, keyName: String, key: SymmetricKey, expiry: Int64) -> String {
        let encodedURI = encodeURIComponent(resourceURI)
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(encodedURI)\n\(expiry)".utf8), using: key)
        let signature = Data(mac).base64EncodedString()
        return "SharedAccessSignature sr=\(encodedURI)&sig=\(encodeURIComponent(signature))&se=\(expiry)&skn=\(encodeURIComponent(keyName))"
    }

    /// JavaScript's `encodeURIComponent`, which the SAS format is defined by.
    static func encodeURIComponent(_ text: String) -> String {
        text.percentEncoded(keeping: "-_.!~*'()")
    }
}
