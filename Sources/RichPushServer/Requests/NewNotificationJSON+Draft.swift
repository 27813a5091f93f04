import Foundation
import RichPushCore
import RichPushStore

/// A new notification checked field by field into a ``NotificationDraft``.
extension NewNotificationJSON: RequestErrorDomain {
    static let errorDomain = "notification"
    static func refusedChoiceCode(field: String) -> String { CampaignJSON.refusedChoiceCode(field: field) }

    static let maximumIdempotencyKeyLength = 200

    /// The draft this request asks for, from its own fields over `template`'s with the placeholders filled in, or the
    /// first problem found as an ``APIError``; `defaultFallbackAfter` is the fetch deadline of a silent push that names
    /// none, and `allowsCriticalAlerts` whether admins may send critical alerts (`--allow-critical-alerts`).
    func draft(
        by caller: AuthenticatedUser, now: Date, template: Template?, defaultTimeZone: TimeZone, defaultFallbackAfter: TimeInterval? = nil,
        allowsCriticalAlerts: Bool = false, imageExists: (Int64) async throws -> Bool
    ) async throws -> NotificationDraft {
        var campaign = self.campaign
        if let template {
            campaign = try campaign.overlaid(on: template.fields).rendered(with: variables ?? [:])
        } else if variables != nil {
            throw APIError.unprocessable("template.missing", "variables fill in a template's placeholders; name the template too.")
        }
        let checked = try await campaign.checked(by: caller, imageExists: imageExists)
        if checked.content.interruptionLevel == .critical {
            // A critical alert sounds through silent mode and focus: Apple grants it for health and safety, not campaigns.
            guard allowsCriticalAlerts else {
                throw APIError.forbidden("Critical alerts are off on this gateway; its operator turns them on with --allow-critical-alerts.")
            }
            guard caller.role == .admin else { throw APIError.forbidden("Only admins send critical alerts.") }
        }
        let fallbackAfter = try campaign.fetchDeadline(style: checked.style, serverDefault: defaultFallbackAfter)
        let deliveryRate = try campaign.checkedDeliveryRate()
        var variants: [Variant] = []
        if let requests = self.variants {
            guard caller.role.mayRunCampaigns else { throw APIError.forbidden("Only marketers and admins run A/B tests.") }
            variants = try await VariantJSON.checked(requests, over: campaign, by: caller, imageExists: imageExists)
        }
        if transactional == true, caller.role != .admin {
            throw APIError.forbidden("Only admins send transactional notifications; a marketer's are held to the frequency cap.")
        }
        let local = try localDelivery(defaultTimeZone: defaultTimeZone)
        // A local delivery's zones reach its time between UTC+14 and UTC−12: its lifetime counts from the last of them.
        let deliverAt = try deliverAt.map { try Self.time($0, field: "deliverAt") } ?? local?.earliestInstant ?? now
        let lifetimeStart = max(now, local?.latestInstant ?? deliverAt)
        let expiresAt = try expiresAt.map { try Self.time($0, field: "expiresAt") } ?? campaign.lifetime().map { lifetimeStart + $0 }
        if let expiresAt, expiresAt <= max(now, deliverAt) {
            throw APIError.unprocessable("notification.invalidExpiry", "expiresAt must be later than both now and deliverAt.")
        }
        if let idempotencyKey, idempotencyKey.isEmpty || idempotencyKey.count > Self.maximumIdempotencyKeyLength {
            throw APIError.unprocessable(
                "notification.invalidIdempotencyKey", "idempotencyKey must be 1 to \(Self.maximumIdempotencyKeyLength) characters.")
        }
        return NotificationDraft(
            message: checked.message, payload: checked.payload, audience: checked.audience, pushStyle: checked.style,
            deliverAt: deliverAt, expiresAt: expiresAt, createdBy: caller.username, idempotencyKey: idempotencyKey,
            content: checked.content, template: template.map { TemplateReference(name: $0.name, version: $0.version) }, localDelivery: local,
            purpose: caller.role == .member || transactional == true ? .transactional : .marketing, variants: variants,
            fallbackAfter: fallbackAfter, deliveryRate: deliveryRate)
    }

    /// The delivery at `deliverAtLocal` in each device's zone, if asked for.
    private func localDelivery(defaultTimeZone: TimeZone) throws -> LocalDelivery? {
        guard let deliverAtLocal else { return nil }
        guard deliverAt == nil else {
            throw APIError.unprocessable("notification.invalidTime", "Give deliverAt or deliverAtLocal, not both.")
        }
        guard let time = Timestamp.parseLocal(deliverAtLocal) else {
            throw APIError.unprocessable(
                "notification.invalidTime", "deliverAtLocal must be a wall-clock time without a zone, such as 2026-12-01T09:00:00.")
        }
        return LocalDelivery(time: time, defaultTimeZone: defaultTimeZone)
    }

    private static func time(_ text: String, field: String) throws -> Date {
        guard let date = Timestamp.parse(text) else {
            throw APIError.unprocessable(
                "notification.invalidTime", "\(field) must be an RFC 3339 time with a zone, such as 2026-12-01T09:00:00Z.")
        }
        return date
    }
}
