import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import RichPushCore
import RichPushStore
import Tracing

/// Creating, listing, describing and recalling rich notifications.
struct NotificationController {
    let notifications: any NotificationRepository
    let results: any ResultRepository
    let statePushes: any StatePushQueue
    let images: any ImageRepository
    let templates: any TemplateRepository
    let library: ImageLibrary
    let payloads: PayloadMemory
    let linkSigner: LinkSigner
    let broadcaster: EventBroadcaster
    let dispatcherDoorbell: Doorbell
    let statePushDoorbell: Doorbell
    let outboxes: OutboxQueue
    let rateLimits: RateLimits
    let metrics: GatewayMetrics
    let clock: any WallClock
    let defaultTimeZone: TimeZone
    /// The fetch deadline of a silent push that names none (`--fallback-after`).
    var defaultFallbackAfter: TimeInterval?
    /// Whether admins may send critical alerts (`--allow-critical-alerts`).
    var allowsCriticalAlerts = false
    let reachCache = ReachCache(clock: ContinuousClock())

    /// The tutorial's message for `POST /api/notifications` without a body.
    static let tutorialMessage = "Check this image out!"

    func addRoutes(to group: RouterGroup<RichPushRequestContext>) {
        group.post("notifications", use: create)
        group.get("notifications", use: list)
        group.get("notifications/:id/info", use: info)
        group.get("notifications/:id/status", use: status)
        group.delete("notifications/:id", use: delete)
    }

    @Sendable func create(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        try rateLimits.admitSend(by: caller)
        let body = try await request.collectBody(limit: StrictRequestDecoder.maximumBytes)
        let now = clock.now
        let draft: NotificationDraft
        let tutorial = body.readableBytes == 0
        if tutorial {
            draft = NotificationDraft(
                message: Self.tutorialMessage, payload: .image(id: try await library.logo(createdBy: caller.username)),
                audience: .tag(Tag.user(caller.username)), pushStyle: .silent, deliverAt: now, expiresAt: nil,
                createdBy: caller.username, idempotencyKey: nil, purpose: caller.role == .member ? .transactional : .marketing)
        } else {
            try request.requireJSONContentType()
            let fields = try StrictRequestDecoder.decode(NewNotificationJSON.self, from: body)
            var template: Template?
            if let name = fields.template {
                // Before the lookup: whether a template exists, and what it holds, is for those who may read templates.
                try caller.require(.marketer, to: "send from templates")
                guard let record = try await templates.template(name: name, version: nil) else {
                    throw APIError.unprocessable("template.notFound", "There is no template \(name.prefix(64)).")
                }
                template = try Template(record)
            }
            draft = try await fields.draft(
                by: caller, now: now, template: template, defaultTimeZone: defaultTimeZone, defaultFallbackAfter: defaultFallbackAfter,
                allowsCriticalAlerts: allowsCriticalAlerts
            ) {
                id in try await images.image(id: id) != nil
            }
        }
        let (record, created) = try await publish(draft, by: caller, now: now, context: context)
        // The tutorial's backend answers its bodiless send with 200, which its client checks for.
        return try await EditedResponse(
            status: created && !tutorial ? .created : .ok, headers: [.location: "/api/notifications/\(record.id)"],
            response: representation(of: record, for: request, by: caller))
    }

    /// Stores `draft` with its outbox and wakes the dispatcher; `created` is false for an idempotency key used before,
    /// whose first notification the record then is.
    func publish(_ draft: NotificationDraft, by caller: AuthenticatedUser, now: Date, context: RichPushRequestContext) async throws -> (
        record: NotificationRecord, created: Bool
    ) {
        let audience = draft.audience.description
        let (record, created) = try await withSpan("notification.outbox.write") { span in
            let stored = try await notifications.create(
                draft, audit: { caller.audit(.notificationCreated, target: String($0), details: "to \(audience)") }, now: now)
            span.attributes["richpush.notification.id"] = stored.notification.id
            span.attributes["richpush.outbox.complete"] = SpanAttribute.bool(stored.notification.outboxComplete)
            return stored
        }
        GatewayTracing.note(notification: record.id)
        if created {
            metrics.notificationCreated()
            dispatcherDoorbell.ring()
            // The rest of a large outbox is written after the answer, while the dispatcher sends each chunk; a crash
            // meanwhile leaves it to the next start (or, on a shared store, another process) to complete.
            if !record.outboxComplete { outboxes.add(record.id) }
            context.logger.info(
                "notification created", metadata: ["richpush.notification.id": "\(record.id)", "richpush.audience": "\(record.audience)"])
        }
        return (record, created)
    }

    @Sendable func list(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        try context.requireIdentity().require(.marketer, to: "list notifications")
        let limit = Int(try request.uri.integer("limit", in: 1...100) ?? 20)
        let before = try request.uri.integer("before", in: 1...Int64.max)
        let page = try await notifications.list(limit: limit + 1, before: before)
        var items: [NotificationJSON] = []
        for record in page.prefix(limit) { items.append(try await representation(of: record, for: request, by: nil)) }
        return PageJSON(items: items, next: page.count > limit ? items.last?.id : nil)
    }

    @Sendable func info(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let record = try await readableNotification(context)
        return try await representation(of: record, for: request, by: context.requireIdentity())
    }

    @Sendable func status(_ request: Request, context: RichPushRequestContext) async throws -> some ResponseGenerator {
        let caller = try context.requireIdentity()
        let record = try await readableNotification(context)
        guard caller.role.mayRunCampaigns || record.createdBy == caller.username else {
            throw APIError.forbidden("Only marketers, admins and its creator may read the status of notification \(record.id).")
        }
        await payloads.fetches.flushed()
        let counts = try await results.counts(notificationId: record.id)
        let state = state(of: record, tally: counts.tally)
        let nextDueAt = counts.tally.pending > 0 ? record.nextDueAt(after: clock.now) : nil
        let variants = try await results.variantFunnels(notificationId: record.id, variants: record.variants)
        let statePushes = try await statePushes.counts(notificationId: record.id)
        let reach = try await reachCache.reach(of: record.id, counts: counts) { try await results.reach(notificationId: record.id) }
        return StatusJSON(
            id: record.id, state: state, counts: counts, nextDueAt: nextDueAt, variants: variants, statePushes: statePushes, reach: reach)
    }

    @Sendable func delete(_ request: Request, context: RichPushRequestContext) async throws -> Response {
        let caller = try context.requireIdentity()
        try caller.require(.marketer, to: "cancel or recall notifications")
        let id = try context.id()
        let audit = { @Sendable (outcome: RemovalOutcome) -> AuditEntry? in
            switch outcome {
            case .canceled: caller.audit(.notificationCanceled, target: String(id))
            case .deleted: caller.audit(.notificationRecalled, target: String(id))
            case .alreadyRemoved: nil
            }
        }
        guard let (outcome, notified) = try await notifications.remove(id: id, audit: audit, now: .now) else {
            throw APIError.notFound("notification.notFound", "There is no notification \(id).")
        }
        payloads.forget(notificationId: id)
        broadcaster.notify(notified)
        statePushDoorbell.ring()
        context.logger.info("notification removed", metadata: ["richpush.notification.id": "\(id)", "richpush.outcome": "\(outcome)"])
        return Response(status: .noContent)
    }

    /// The notification of the path, if the caller may see it: admins and marketers see all, others those they
    /// receive or created.
    private func readableNotification(_ context: RichPushRequestContext) async throws -> NotificationRecord {
        let caller = try context.requireIdentity()
        let id = try context.id()
        guard let record = try await notifications.notification(id: id),
            try await payloads.mayRead(record, caller: caller)
        else { throw APIError.notFound("notification.notFound", "There is no notification \(id).") }
        return record
    }

    /// `record` as JSON, in the language `request`'s `Accept-Language` picks; `reader` nil for a marketer's list.
    /// The requests of `http` actions are for marketers, admins and the notification's sender.
    private func representation(of record: NotificationRecord, for request: Request, by reader: AuthenticatedUser?) async throws
        -> NotificationJSON
    {
        let tally = try await results.counts(notificationId: record.id).tally
        return NotificationJSON(
            record, state: state(of: record, tally: tally), payloadURL: linkSigner.payloadURL(id: record.id),
            localization: record.content.localization(forAcceptLanguage: request.headers[.acceptLanguage]),
            showsActionRequests: reader.map { $0.role.mayRunCampaigns || $0.username == record.createdBy } ?? true)
    }

    private func state(of record: NotificationRecord, tally: DeliveryTally) -> NotificationState {
        var tally = tally
        // Deliveries not written yet are outstanding all the same.
        if !record.outboxComplete { tally.pending += 1 }
        return NotificationState.derive(
            tally: tally, deliverAt: record.deliverAt, expiresAt: record.expiresAt, canceled: record.canceledAt != nil, now: .now)
    }
}
