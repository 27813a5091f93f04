import Foundation
import Hummingbird
import HummingbirdAuth
import NIOFoundationEssentialsCompat
import RichPushCore
import RichPushStore

/// The registration API of the Notification Hubs tutorial's backend, which its iOS client speaks: `POST
/// /api/register` hands out a new registration id, `PUT /api/register/{id}` registers the device under it and
/// `DELETE` removes it. A registration is an installation of the caller with that id.
struct RegistrationController {
    let installations: any InstallationRepository
    let registrar: Registrar

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("register", use: create)
        group.put("register/:id", use: update)
        group.delete("register/:id", use: delete)
    }

    /// The body of `PUT`, named as the tutorial's client names it.
    struct RegistrationRequest: Decodable {
        var platform: String
        var handle: String
        var tags: [String]?

        enum CodingKeys: String, CodingKey {
            case platform = "Platform"
            case handle = "Handle"
            case tags = "Tags"
        }
    }

    /// A new registration id, as a JSON string.
    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        _ = try context.requireIdentity()
        let id = "reg-" + UUID().uuidString.lowercased()
        let body = try JSONEncoder().encodeAsByteBuffer(id, allocator: ByteBufferAllocator())
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    @Sendable func update(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        let id = try InstallationRequest.validId(context.parameters.require("id"))
        let body = try await request.decode(as: RegistrationRequest.self, context: context)
        // The tutorial's client may name its user's tag; the gateway gives every installation that one anyway.
        let own = Tag.user(caller.username)
        let installation = InstallationRequest(
            platform: try Self.platform(body.platform), pushChannel: PushChannelField(text: body.handle), tags: body.tags?.filter { $0 != own })
        let (stored, _) = try await registrar.register(
            try installation.record(
                id: id, owner: caller.username, now: .now, rules: registrar.rules))
        return EditedResponse(status: .ok, headers: [.location: "/api/installations/\(id)"], response: InstallationJSON(stored))
    }

    @Sendable func delete(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        let id = try InstallationRequest.validId(context.parameters.require("id"))
        guard let installation = try await installations.installation(id: id), installation.owner == caller.username else {
            throw APIError.notFound("installation.notFound", "There is no registration \(id).")
        }
        try await installations.delete(id: installation.id, now: .now)
        registrar.dispatcherDoorbell.ring()
        return Response(status: .ok)
    }

    /// A platform the tutorial registers: a device's own hub, not the direct stream.
    private static func platform(_ name: String) throws -> Platform {
        guard let platform = Platform(rawValue: name), Platform.registeredByTheTutorial.contains(platform) else {
            throw APIError.unprocessable(
                "installation.invalidPlatform", "Platform must be one of \(Platform.names(Platform.registeredByTheTutorial)).")
        }
        return platform
    }
}
