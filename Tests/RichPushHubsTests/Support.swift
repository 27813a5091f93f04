import AsyncHTTPClient
import Foundation
import Logging
import RichPushCore

@testable import RichPushHubs

/// A temporary directory for a test's keys and certificates, removed when the test ends.
struct Scratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-hubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

let quietLogger: Logger = {
    var logger = Logger(label: "richpush.hubs.test")
    logger.logLevel = .critical
    return logger
}()

/// A claimed delivery as the dispatcher hands it to a hub.
func job(
    _ deliveryId: Int64, notification: Int64 = 42, installation: String? = nil, platform: Platform = .apns, channel: String? = nil,
    message: String = "Check this image out!", style: PushStyle = .silent, audience: String = "username:alice", expiresAt: Date? = nil,
    content: PushContent = PushContent(), language: String? = nil, unreadCount: Int? = nil, imageLink: String? = nil,
    abVariant: String? = nil
) -> DeliveryJob {
    let installationId = installation ?? "device-\(deliveryId)"
    let variant = content.localization(forInstallationLanguage: language)
    let push = SilentPush(
        richId: notification, richType: .img, message: message, style: style, content: content, localization: variant?.localization,
        unreadCount: unreadCount)
    return DeliveryJob(
        deliveryId: deliveryId, attempt: 1, notificationId: notification, push: push, audience: audience, expiresAt: expiresAt,
        installationId: installationId, owner: "alice", platform: platform,
        pushChannel: channel ?? installationId.utf8.map { String(format: "%02x", $0) }.joined(), language: variant?.tag,
        variant: abVariant, variesByDevice: content.variesByDevice || abVariant != nil, imageLink: imageLink)
}

/// Runs `body` with a hub client trusting `caFile`, shut down afterwards.
@discardableResult
func withHubClient<T>(caFile: String? = nil, _ body: (HTTPClient) async throws -> T) async throws -> T {
    let client = try HTTPClient.hubClient(caFile: caFile)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// The JSON object in `text`.
func object(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}

/// A campaign with every visible field, custom data and a French variant.
let winterSale = PushContent(
    title: "Winter sale", sound: "default", badge: .number(3), category: "sale", threadId: "winter", data: ["campaign": "w1"],
    localizations: ["fr": Localization(message: "Soldes", title: "Soldes d’hiver")])
