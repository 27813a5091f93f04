import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import RichPushCore
import RichPushStore

/// `GET`/`PUT /api/users/{username}/segments`: the protected tags (`segment:vip`) marketers and admins put users in.
/// Every installation of the user carries them; no device may set one itself, so no member can join an audience it
/// was not put in.
struct SegmentController {
    let installations: any InstallationRepository
    let protectedTagPrefixes: [String]
    let dispatcherDoorbell: Doorbell

    /// More than a device's own tags would be a segment too many to mean anything.
    static let maximumSegments = 60

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.get("users/:username/segments", use: get)
        group.put("users/:username/segments", use: update)
    }

    struct SegmentsRequest: Decodable {
        var segments: [String]
    }

    /// The user's segments, for marketers, admins and the user.
    @Sendable func get(_ request: Request, context: RichPushRequestContext) async throws -> SegmentsJSON {
        let caller = try context.requireIdentity()
        let username = try context.parameters.require("username")
        if username != caller.username { try caller.require(.marketer, to: "read another user's segments") }
        guard let segments = try await installations.segments(of: username) else {
            throw APIError.notFound("user.notFound", "There is no user \(username.prefix(64)).")
        }
        return SegmentsJSON(username: username, segments: segments)
    }

    @Sendable func update(_ request: Request, context: RichPushRequestContext) async throws -> SegmentsJSON {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "assign segments")
        let username = try context.parameters.require("username")
        let body = try await request.decode(as: SegmentsRequest.self, context: context)
        guard body.segments.count <= Self.maximumSegments else {
            throw APIError.unprocessable("segments.invalid", "A user is in at most \(Self.maximumSegments) segments.")
        }
        let prefixes = protectedTagPrefixes
        for segment in body.segments {
            guard Tag.isValid(segment), let prefix = TagProtection.protectedPrefix(of: segment, among: prefixes),
                segment.count > prefix.count
            else {
                throw APIError.unprocessable(
                    "segments.invalid",
                    "'\(segment.prefix(130))' is not a segment: a tag starting with \(prefixes.joined(separator: " or ")) and a name.")
            }
        }
        let audit = { @Sendable (segments: [String]) in
            caller.audit(.segmentsChanged, target: username, details: segments.isEmpty ? "none" : segments.joined(separator: ", "))
        }
        guard let segments = try await installations.setSegments(body.segments, of: username, audit: audit, now: .now) else {
            throw APIError.notFound("user.notFound", "There is no user \(username.prefix(64)).")
        }
        dispatcherDoorbell.ring()
        context.logger.info("segments changed", metadata: ["richpush.username": "\(username)", "richpush.segments": "\(segments)"])
        return SegmentsJSON(username: username, segments: segments)
    }
}

/// Protected tag prefixes (`--protected-tag-prefixes`), compared as the reserved ones are: without regard to case.
enum TagProtection {
    /// The protected prefix `tag` starts with, if any.
    static func protectedPrefix(of tag: String, among prefixes: [String]) -> String? {
        let folded = tag.lowercased()
        return prefixes.first { folded.hasPrefix($0.lowercased()) }
    }
}
