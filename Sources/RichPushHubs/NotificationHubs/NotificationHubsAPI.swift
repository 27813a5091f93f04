import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
public import RichPushCore

/// A device registration as a mirror keeps it in a remote hub.
public struct MirroredInstallation: Sendable, Equatable {
    public var id: String
    public var platform: Platform
    public var pushChannel: String
    /// Every tag, the automatic `username:`, `installation:` and `platform:` ones included, so audiences evaluate
    /// in the hub exactly as in the gateway.
    public var tags: [String]

    public init(id: String, platform: Platform, pushChannel: String, tags: [String]) {
        self.id = id
        self.platform = platform
        self.pushChannel = pushChannel
        self.tags = tags
    }
}

/// Keeps a remote hub's registrations in step with the gateway's installations.
public protocol InstallationMirror: Sendable {
    func put(_ installation: MirroredInstallation) async throws
    func delete(installationId: String) async throws
}

/// A mirror request the hub refused; `isTransient` tells whether trying again later can help.
public struct MirrorError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public let isTransient: Bool
}

/// The REST calls of one Notification Hub, SAS-signed.
struct NotificationHubsAPI: InstallationMirror {
    enum Target {
        /// An audience send: the hub evaluates the expression against its installations' tags.
        case tags(String)
        /// A direct send to one push channel, needing no registration.
        case device(String)
    }

    /// `https://<namespace>.servicebus.windows.net/<hub>` or the configured endpoint's equivalent.
    let hubURL: String
    let signature: SharedAccessSignature
    let client: HTTPClient

    static func configured(by settings: HubSettings, client: HTTPClient) throws(HubConfigurationError) -> NotificationHubsAPI? {
        let given = try HubSettings.group([
            (ServeHubSettings.notificationHubsConnectionString.name, settings.notificationHubsConnectionString),
            (ServeHubSettings.notificationHubsHub.name, settings.notificationHubsHub),
        ])
        guard let given else { return nil }
        let connection = try ConnectionString(given[0])
        let hub = given[1]
        guard hub.utf8.allSatisfy({ $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 > 32 }) else {
            throw HubConfigurationError("\(ServeHubSettings.notificationHubsHub.name): '\(hub)' is not a hub name")
        }
        let base = try HubSettings.baseURL(
            settings.notificationHubsEndpoint ?? "https://\(connection.host)", setting: ServeHubSettings.notificationHubsEndpoint.name)
        return NotificationHubsAPI(
            hubURL: "\(base)/\(hub)", signature: SharedAccessSignature(connection: connection, hub: hub), client: client)
    }

    /// The installations API names FCM HTTP v1 devices `fcmv1`.
    static func hubPlatform(_ platform: Platform) -> String {
        platform == .fcm ? "fcmv1" : platform.rawValue
    }

    func put(_ installation: MirroredInstallation) async throws {
        let body: [String: Any] = [
            "installationId": installation.id, "platform": Self.hubPlatform(installation.platform),
            "pushChannel": installation.pushChannel, "tags": installation.tags,
        ]
        var request = signedRequest(path: "/installations/\(encodedId(installation.id))?api-version=2015-01", method: .PUT)
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])))
        try check(try await client.hubExecute(request), accepting: [200, 201])
    }

    func delete(installationId: String) async throws {
        let request = signedRequest(path: "/installations/\(encodedId(installationId))?api-version=2015-01", method: .DELETE)
        // Deleting what the hub no longer has is done.
        try check(try await client.hubExecute(request), accepting: [200, 204, 404])
    }

    func send(_ job: DeliveryJob, to target: Target) async throws -> HubResponse {
        let path: String
        switch target {
        case .tags: path = "/messages/?api-version=2015-01"
        case .device: path = "/messages/?direct&api-version=2015-04"
        }
        var request = signedRequest(path: path, method: .POST)
        request.headers.add(name: "content-type", value: "application/json;charset=utf-8")
        switch target {
        case .tags(let expression): request.headers.add(name: "ServiceBusNotification-Tags", value: expression)
        case .device(let handle): request.headers.add(name: "ServiceBusNotification-DeviceHandle", value: handle)
        }
        let body: Data
        if job.platform == .apns {
            request.headers.add(name: "ServiceBusNotification-Format", value: "apple")
            // Token-based APNs credentials let the hub pass these through to Apple.
            request.headers.add(name: "apns-push-type", value: job.pushStyle == .silent ? "background" : "alert")
            request.headers.add(name: "apns-priority", value: job.pushStyle == .silent ? "5" : "10")
            if let expiresAt = job.expiresAt {
                request.headers.add(name: "ServiceBusNotification-Apns-Expiry", value: Timestamp.format(expiresAt))
            }
            body = job.push.apnsPayload()
        } else {
            request.headers.add(name: "ServiceBusNotification-Format", value: "fcmv1")
            body = FCMHub.message(for: job, token: nil)
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        return try await client.hubExecute(request)
    }

    private func signedRequest(path: String, method: HTTPMethod) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: hubURL + path)
        request.method = method
        request.headers.add(name: "authorization", value: signature.authorization())
        request.headers.add(name: "x-ms-version", value: "2015-01")
        return request
    }

    private func encodedId(_ id: String) -> String {
        id.percentEncoded(keeping: "-_.~@")
    }

    private func check(_ response: HubResponse, accepting statuses: Set<Int>) throws {
        guard !statuses.contains(response.status) else { return }
        let text = String(buffer: response.body).prefix(300)
        throw MirrorError(
            description: "Notification Hubs answered \(response.status)\(text.isEmpty ? "" : ": \(text)")",
            isTransient: response.status == 429 || response.status >= 500)
    }
}
