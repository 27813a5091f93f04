public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RichPushCore

extension HTTPClient {
    /// The client every remote hub shares: HTTP/2 where the server offers it (APNs requires it), trusting the system's
    /// CAs plus `caFile` when given. Redirects are never followed: no push service asks for one, and following them
    /// would replay a push, with its credentials, to whatever address a push endpoint names.
    public static func hubClient(caFile: String?) throws(HubConfigurationError) -> HTTPClient {
        HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: try hubClientConfiguration(caFile: caFile))
    }

    /// The configuration of ``hubClient(caFile:)``, which the clients of hosts users name share.
    public static func hubClientConfiguration(caFile: String?) throws(HubConfigurationError) -> HTTPClient.Configuration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw HubConfigurationError("\(ServeHubSettings.tlsCAFile.name): cannot read \(caFile)")
            }
            tls.additionalTrustRoots = [.file(caFile)]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        configuration.connectionPool = .init(idleTimeout: .seconds(600))
        configuration.redirectConfiguration = .disallow
        return configuration
    }
}

/// One answer of a hub's HTTP API, collected.
struct HubResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer

    /// `Retry-After` in seconds, from either of its forms (delta seconds or an HTTP date).
    var retryAfter: TimeInterval? {
        guard let value = headers.first(name: "retry-after")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }

    /// The body as a JSON object, or nil when it is not one.
    var jsonObject: [String: Any]? {
        guard let bytes = body.getBytes(at: body.readerIndex, length: body.readableBytes) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}

extension HTTPClient {
    /// Sends `request` and collects the answer; a failure to reach the hub throws.
    func hubExecute(_ request: HTTPClientRequest, timeout: TimeAmount = .seconds(30)) async throws -> HubResponse {
        let response = try await execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1024 * 1024)
        return HubResponse(status: Int(response.status.code), headers: response.headers, body: body)
    }
}

extension String {
    /// Percent-encodes every byte except ASCII letters, digits and `unreserved`.
    func percentEncoded(keeping unreserved: String) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        allowed.insert(charactersIn: unreserved)
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
