import Foundation
import Hummingbird
import RichPushCore
import RichPushStore

/// Device registrations: `PUT`, `GET`, `DELETE /api/installations/{installationId}` and the list.
struct InstallationController {
    let gateway: Gateway

    /// Notification Hubs allows 60 tags per registration.
    static let maximumTags = 60
    static let maximumChannelLength = 4096
    /// Tags the gateway derives; a device claiming them could receive another user's pushes.
    static let reservedPrefixes = ["username:", "installation:", "platform:"]

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("installations", use: list)
        group.put("installations/:installationId", use: upsert)
        group.get("installations/:installationId", use: get)
        group.delete("installations/:installationId", use: delete)
    }

    struct UpsertRequest: Decodable {
        var platform: String
        var pushChannel: String
        var tags: [String]?
        var appVersion: String?
        var applicationName: String?
        var sdkVersion: String?
        var timeZone: String?
    }

    @Sendable func upsert(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.caller()
        let id = try installationId(context)
        let body = try await request.decodeJSON(UpsertRequest.self, limit: gateway.configuration.maximumJSONBytes)
        guard let platform = Platform(rawValue: body.platform) else {
            throw APIError.unprocessable("installation.invalidPlatform", "platform must be one of apns, fcm, wns, direct.")
        }
        let channel = body.pushChannel.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !channel.isEmpty, channel.utf8.count <= Self.maximumChannelLength else {
            throw APIError.unprocessable("installation.invalidPushChannel", "pushChannel must be 1 to \(Self.maximumChannelLength) bytes.")
        }
        guard platform.accepts(pushChannel: channel) else {
            throw APIError.unprocessable("installation.invalidPushChannel", "An APNs pushChannel is the hexadecimal device token.")
        }
        let tags = try validTags(body.tags ?? [])
        for (name, value) in [
            ("appVersion", body.appVersion), ("applicationName", body.applicationName), ("sdkVersion", body.sdkVersion), ("timeZone", body.timeZone),
        ] {
            if let value, value.count > 200 { throw APIError.unprocessable("installation.invalidField", "\(name) must be at most 200 characters.") }
        }
        let now = Date.now
        let record = InstallationRecord(
            id: id, owner: caller.username, platform: platform, pushChannel: channel, tags: tags, appVersion: body.appVersion,
            applicationName: body.applicationName, sdkVersion: body.sdkVersion, timeZone: body.timeZone, createdAt: now, updatedAt: now)
        do {
            let (stored, created) = try await gateway.store.upsertInstallation(record)
            // A remote hub's copy of the registration is brought in step by the dispatcher.
            gateway.dispatcherDoorbell.ring()
            return try InstallationJSON(stored).jsonResponse(
                status: created ? .created : .ok, headers: [.location: "/api/installations/\(id)"])
        } catch StoreError.installationOwnedByAnother {
            throw APIError.conflict("installation.taken", "Installation \(id) is registered by another user.")
        }
    }

    @Sendable func get(_ request: Request, context: RichPushRequestContext) async throws -> InstallationJSON {
        InstallationJSON(try await visibleInstallation(context))
    }

    @Sendable func delete(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let installation = try await visibleInstallation(context)
        try await gateway.store.deleteInstallation(id: installation.id)
        gateway.dispatcherDoorbell.ring()
        return Response(status: .noContent)
    }

    struct ListJSON: ResponseEncodable {
        var items: [InstallationJSON]
    }

    /// An admin sees every installation (`?owner=` narrows it), anyone else their own.
    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> ListJSON {
        let caller = try context.caller()
        let owner = caller.role == .admin ? request.uri.queryParameters.get("owner") : caller.username
        let limit = Int(try request.uri.integer("limit", in: 1...1000) ?? 200)
        return ListJSON(items: try await gateway.store.installations(owner: owner, limit: limit).map(InstallationJSON.init))
    }

    private func visibleInstallation(_ context: RichPushRequestContext) async throws -> InstallationRecord {
        let caller = try context.caller()
        let id = try installationId(context)
        guard let installation = try await gateway.store.installation(id: id), installation.owner == caller.username || caller.role == .admin
        else { throw APIError.notFound("installation.notFound", "There is no installation \(id).") }
        return installation
    }

    private func installationId(_ context: RichPushRequestContext) throws -> String {
        let id = context.parameters.get("installationId") ?? ""
        guard Identifier.isValid(id) else {
            throw APIError.badRequest("installation.invalidId", "An installation id has 1 to 64 letters, digits or _ . @ -.")
        }
        return id
    }

    private func validTags(_ tags: [String]) throws -> [String] {
        guard tags.count <= Self.maximumTags else {
            throw APIError.unprocessable("installation.tooManyTags", "An installation may carry at most \(Self.maximumTags) tags.")
        }
        for tag in tags {
            guard Tag.isValid(tag) else {
                throw APIError.unprocessable(
                    "installation.invalidTag", "'\(tag.prefix(130))' is not a tag: up to 120 letters, digits or _ @ # . : -.")
            }
            if let prefix = Self.reservedPrefixes.first(where: { tag.hasPrefix($0) }) {
                throw APIError.unprocessable("installation.reservedTag", "Tags starting with '\(prefix)' are set by the gateway.")
            }
        }
        return Array(Set(tags)).sorted()
    }
}
