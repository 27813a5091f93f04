import Foundation
import RichPushCore
import RichPushStore

/// The JSON body of `POST /api/notifications`, checked field by field into a ``NotificationDraft``.
struct NotificationRequest: Decodable {
    var message: String?
    var richType: String?
    var imageId: Int64?
    var url: String?
    var text: String?
    var audience: String?
    var deliverAt: String?
    var expiresAt: String?
    var pushStyle: String?
    var idempotencyKey: String?

    static let maximumMessageLength = 1000
    static let maximumTextBytes = 64 * 1024
    static let maximumURLLength = 2048
    static let maximumIdempotencyKeyLength = 200

    /// The draft this request asks for, or the first problem found as an ``APIError``.
    func draft(by caller: AuthenticatedUser, now: Date, imageExists: (Int64) async throws -> Bool) async throws -> NotificationDraft {
        guard let message = message?.trimmingCharacters(in: .whitespacesAndNewlines), !message.isEmpty else {
            throw APIError.unprocessable("notification.invalidMessage", "message is required and may not be blank.")
        }
        guard message.count <= Self.maximumMessageLength else {
            throw APIError.unprocessable("notification.invalidMessage", "message must be at most \(Self.maximumMessageLength) characters.")
        }
        guard let richType = richType.flatMap(RichType.init(rawValue:)) else {
            throw APIError.unprocessable("notification.invalidRichType", "richType must be one of img, url, text.")
        }
        let payload = try await self.payload(of: richType, by: caller, imageExists: imageExists)
        let audienceText = audience ?? Tag.user(caller.username)
        let expression: TagExpression
        do {
            expression = try TagExpression(parsing: audienceText)
        } catch {
            throw APIError.badRequest("audience.invalid", "The audience is not a valid tag expression: \(error).")
        }
        if caller.role == .member, expression.soleUsername != caller.username {
            throw APIError.forbidden("A member may only address itself (audience \(Tag.user(caller.username))).")
        }
        let deliverAt = try deliverAt.map { try Self.time($0, field: "deliverAt") } ?? now
        let expiresAt = try expiresAt.map { try Self.time($0, field: "expiresAt") }
        if let expiresAt, expiresAt <= max(now, deliverAt) {
            throw APIError.unprocessable("notification.invalidExpiry", "expiresAt must be later than both now and deliverAt.")
        }
        let style =
            try pushStyle.map { text in
                guard let style = PushStyle(rawValue: text) else {
                    throw APIError.unprocessable("notification.invalidPushStyle", "pushStyle must be silent or alert.")
                }
                return style
            } ?? .silent
        if let idempotencyKey, idempotencyKey.isEmpty || idempotencyKey.count > Self.maximumIdempotencyKeyLength {
            throw APIError.unprocessable(
                "notification.invalidIdempotencyKey", "idempotencyKey must be 1 to \(Self.maximumIdempotencyKeyLength) characters.")
        }
        let push = SilentPush(richId: Int64.max, richType: richType, richMessage: message, style: style)
        guard push.apnsPayload().count <= SilentPush.apnsPayloadLimit else {
            throw APIError.unprocessable("notification.tooLarge", "The message makes the push larger than the 4096 bytes APNs accepts.")
        }
        return NotificationDraft(
            message: message, payload: payload, audience: expression, pushStyle: style, deliverAt: deliverAt, expiresAt: expiresAt,
            createdBy: caller.username, idempotencyKey: idempotencyKey)
    }

    private func payload(of richType: RichType, by caller: AuthenticatedUser, imageExists: (Int64) async throws -> Bool) async throws
        -> RichPayload
    {
        switch richType {
        case .img:
            guard let imageId else { throw APIError.unprocessable("notification.missingImage", "richType img needs an imageId.") }
            // Image ids count up from 1: a member naming one would read another sender's unsent image through its own
            // payload. Members upload none, so there is no image a member may attach.
            guard caller.role.mayRunCampaigns else {
                throw APIError.forbidden("A member may not attach images; only marketers and admins send image notifications.")
            }
            guard imageId > 0, try await imageExists(imageId) else {
                throw APIError.unprocessable("image.notFound", "There is no image \(imageId); upload it to /api/images first.")
            }
            return .image(id: imageId)
        case .url:
            guard let url, url.count <= Self.maximumURLLength, let parsed = URL(string: url),
                let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http", parsed.host?.isEmpty == false
            else {
                throw APIError.unprocessable("notification.invalidURL", "richType url needs an absolute http or https url.")
            }
            return .url(url)
        case .text:
            guard let text, !text.isEmpty, text.utf8.count <= Self.maximumTextBytes else {
                throw APIError.unprocessable("notification.invalidText", "richType text needs a text of 1 byte to 64 KiB.")
            }
            return .text(text)
        }
    }

    private static func time(_ text: String, field: String) throws -> Date {
        guard let date = Timestamp.parse(text) else {
            throw APIError.unprocessable(
                "notification.invalidTime", "\(field) must be an RFC 3339 time with a zone, such as 2026-12-01T09:00:00Z.")
        }
        return date
    }
}
