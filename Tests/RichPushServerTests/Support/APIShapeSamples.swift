import Foundation
import RichPushCore

@testable import RichPushServer
@testable import RichPushStore

/// One instance of an API type, and the schema of `Public/openapi.yaml` it must match.
struct APIShapeSample {
    var name: String
    /// A JSON pointer into the document.
    var schema: String
    var value: any Encodable
    /// Every optional field set (but those of ``mayLeaveUnset``), or every one unset.
    var complete: Bool
    var isRequest = false
    /// Fields a complete sample leaves unset because the schema's context never has them (a token's secret in a list).
    var mayLeaveUnset: Set<String> = []
}

/// The samples `OpenAPIShapeTests` checks: for every type the server answers with, one with every optional field set
/// and one with none, each against the schema the document gives it.
enum APIShapeSamples {
    static let time = "2026-11-22T10:00:00.250Z"
    static let localization = Localization(
        message: "Soldes", title: "Soldes d’hiver", text: "Texte", url: "https://example.com/fr", actions: [ActionLabel(id: "shop", label: "Acheter")]
    )
    static let actions = [
        NotificationAction(id: "remind", label: "Remind me", kind: .http, url: "https://api.example/remind", method: .POST, body: "{}")
    ]
    /// As a device is told of them: an open action's link, and none of an http action's request.
    static let deviceActions = [DeviceAction(id: "shop", label: "Shop now", kind: .open, url: "https://shop.example/sale")]

    static func all() throws -> [APIShapeSample] {
        var samples: [APIShapeSample] = []
        /// The same sample twice when a type has no optional field.
        func add(_ name: String, _ schema: String, complete: any Encodable, bare: (any Encodable)? = nil, mayLeaveUnset: Set<String> = []) {
            samples.append(APIShapeSample(name: name, schema: schema, value: complete, complete: true, mayLeaveUnset: mayLeaveUnset))
            samples.append(APIShapeSample(name: name + " (bare)", schema: schema, value: bare ?? complete, complete: false))
        }
        add(
            "ErrorJSON", schema("Error"),
            complete: ErrorJSON(error: .init(status: 422, code: "image.corrupt", message: "The PNG image does not decode.")))
        add("UserJSON", schema("User"), complete: UserJSON(username: "mark", role: .marketer))
        add("ImageJSON", schema("Image"), complete: image)
        add("NotificationJSON", schema("Notification"), complete: notification, bare: bareNotification)
        add("NotificationJSON.VariantJSON", schema("Notification") + "/properties/variants/items", complete: variant, bare: bareVariant)
        add(
            "NotificationJSON.TemplateJSON", schema("Notification") + "/properties/template",
            complete: NotificationJSON.TemplateJSON(name: "welcome", version: 2))
        add("StatusJSON", schema("Status"), complete: status, bare: bareStatus)
        add(
            "StatusJSON.VariantFunnelJSON", schema("Status") + "/properties/variants/items",
            complete: StatusJSON.VariantFunnelJSON(
                name: "a", targeted: 4, sent: 2, fetched: 1, displayed: 1, opened: 1, dismissed: 0,
                reach: Reach(
                    fetchedWithin1m: 1, fetchedWithin10m: 1, fetchedWithin1h: 1, reached: 1, notReached: 1, fetchSecondsP50: 3, fetchSecondsP90: 3),
                actions: ["shop": 1]),
            bare: StatusJSON.VariantFunnelJSON(name: "b", targeted: 1, sent: 0, fetched: 0, displayed: 0, opened: 0, dismissed: 0))
        add("InstallationJSON", schema("Installation"), complete: installation, bare: bareInstallation)
        add("FeedItemJSON", schema("FeedItem"), complete: feedItem, bare: bareFeedItem)
        add("ReceiptJSON", schema("Receipt"), complete: ReceiptJSON(notificationId: 3, installationId: "laptop", event: .displayed))
        add("DeliveryResultJSON", schema("DeliveryResult"), complete: deliveryResult, bare: bareDeliveryResult)
        add("TokenJSON", schema("Token"), complete: token(secret: nil), bare: bareToken, mayLeaveUnset: ["token"])
        add(
            "ActivityJSON", schema("Activity"),
            complete: ActivityJSON(
                id: 3, audience: "username:alice", attributesType: "DeliveryAttributes", attributes: .object(["order": .string("A-17")]),
                contentState: .object(["eta": .integer(600)]), state: "ended", createdBy: "mark", createdAt: time, updatedAt: time,
                alert: ActivityAlert(title: "Order A-17", body: "Delivered"), staleDate: time, relevanceScore: 0.5, endedAt: time,
                dismissAt: time),
            bare: ActivityJSON(
                id: 4, audience: "topic:a", attributesType: "T", attributes: .object([:]), contentState: .object([:]), state: "active",
                createdBy: "mark", createdAt: time, updatedAt: time))
        add(
            "ActivityDeliveryJSON", schema("ActivityDelivery"),
            complete: ActivityDeliveryJSON(
                installationId: "iphone", owner: "alice", event: .update, state: "failed", reason: "apns.badDeviceToken", attempts: 2,
                sentAt: time),
            bare: ActivityDeliveryJSON(installationId: "iphone", owner: "alice", event: .start, state: "pending", attempts: 0))
        add("AuditEventJSON", schema("AuditEvent"), complete: auditEvent, bare: bareAuditEvent)
        let webhook = WebhookJSON(
            id: "wh_1", url: "https://hooks.example.com/richpush", events: [.deliverySent, .notificationCompleted], createdBy: "admin",
            createdAt: "2026-11-22T10:00:00.000Z", enabled: false, disabledAt: "2026-11-23T10:00:00.000Z",
            disabledReason: "The receiver answered 410 Gone.",
            failingSince: "2026-11-23T09:00:00.000Z")
        let bareWebhook = WebhookJSON(
            id: "wh_1", url: "https://hooks.example.com/richpush", events: [.deliverySent], createdBy: "admin",
            createdAt: "2026-11-22T10:00:00.000Z", enabled: true)
        add("WebhookJSON", schema("Webhook"), complete: webhook, bare: bareWebhook, mayLeaveUnset: ["secret"])
        let webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        var createdWebhook = webhook
        createdWebhook.secret = webhookSecret
        var bareCreatedWebhook = bareWebhook
        bareCreatedWebhook.secret = webhookSecret
        add("WebhookJSON (created)", response("post", "/api/webhooks", "201"), complete: createdWebhook, bare: bareCreatedWebhook)
        add(
            "ListJSON<WebhookJSON>", response("get", "/api/webhooks"), complete: ListJSON(items: [webhook]), bare: ListJSON(items: [bareWebhook]),
            mayLeaveUnset: ["items[0].secret"])
        add(
            "ListJSON<WebhookAttemptJSON>", response("get", "/api/webhooks/{id}/attempts"),
            complete: ListJSON(items: [
                WebhookAttemptJSON(
                    id: 1, messageId: "msg_1", attemptedAt: "2026-11-22T10:00:00.000Z", events: 3, status: 503, error: "no answer", durationMs: 12)
            ]),
            bare: ListJSON(items: [
                WebhookAttemptJSON(
                    id: 1, messageId: "msg_1", attemptedAt: "2026-11-22T10:00:00.000Z", events: 3, status: nil, error: nil, durationMs: 12)
            ]))
        add(
            "AudienceCountJSON", schema("AudienceCount"),
            complete: AudienceCountJSON(
                expression: "(topic:sale && !lang:fr)", installations: 5, recipients: 3,
                platforms: Dictionary(uniqueKeysWithValues: Platform.allCases.map { ($0.rawValue, 1) })))
        add("HealthJSON", schema("Health"), complete: HealthJSON(status: "ok"))
        add("RetryJSON", schema("Retry"), complete: RetryJSON(retried: 3))
        add("SegmentsJSON", schema("Segments"), complete: SegmentsJSON(username: "alice", segments: ["segment:vip"]))
        add("Template", schema("Template"), complete: try template, bare: try bareTemplate)

        var createdToken = bareToken
        createdToken.token = secret
        add("TokenJSON (created)", response("post", "/api/tokens", "201"), complete: token(secret: secret), bare: createdToken)
        add(
            "PageJSON<NotificationJSON>", response("get", "/api/notifications"), complete: PageJSON(items: [notification], next: Int64(1)),
            bare: PageJSON(items: [bareNotification], next: Int64?.none))
        add(
            "PageJSON<DeliveryResultJSON>", response("get", "/api/notifications/{id}/deliveries"),
            complete: PageJSON(items: [deliveryResult], next: Int64(1)), bare: PageJSON(items: [bareDeliveryResult], next: Int64?.none))
        add(
            "PageJSON<AuditEventJSON>", response("get", "/api/audit"), complete: PageJSON(items: [auditEvent], next: Int64(1)),
            bare: PageJSON(items: [bareAuditEvent], next: Int64?.none))
        add(
            "ListJSON<InstallationJSON>", response("get", "/api/installations"), complete: ListJSON(items: [installation]),
            bare: ListJSON(items: [bareInstallation]))
        add(
            "ListJSON<TokenJSON>", response("get", "/api/tokens"), complete: ListJSON(items: [token(secret: nil)]),
            bare: ListJSON(items: [bareToken]), mayLeaveUnset: ["items[0].token"])
        add(
            "PageJSON<Template>", response("get", "/api/templates"), complete: PageJSON(items: [try template], next: "winter-sale"),
            bare: PageJSON(items: [try bareTemplate], next: String?.none))
        add(
            "FeedJSON", response("get", "/api/me/notifications"), complete: FeedJSON(items: [feedItem], cursor: "12"),
            bare: FeedJSON(items: [bareFeedItem], cursor: "12"))
        add(
            "TimelineJSON", response("get", "/api/notifications/{id}/timeline"),
            complete: TimelineJSON(step: 60, buckets: [.init(at: time, sent: 3, fetched: 2, displayed: 2, opened: 1, dismissed: 0, fallbacks: 1)]))
        add("InstallationImportJSON", response("post", "/api/installations/import"), complete: InstallationImportJSON(imported: 2, created: 1))
        add("WebPushKeyJSON", response("get", "/api/webpush/key"), complete: WebPushKeyJSON(publicKey: "BPk"))

        samples.append(
            APIShapeSample(name: "NewNotificationJSON", schema: schema("NewNotification"), value: newNotification, complete: true, isRequest: true))
        var fromTemplate = NewNotificationJSON(message: nil, richType: nil, audience: nil)
        fromTemplate.template = "welcome"
        samples.append(
            APIShapeSample(
                name: "NewNotificationJSON (from a template)", schema: schema("NewNotification"), value: fromTemplate, complete: false,
                isRequest: true))
        samples.append(
            APIShapeSample(
                name: "NewNotificationJSON (bare)", schema: schema("NewNotification"),
                value: NewNotificationJSON(message: "Hi", richType: .text, audience: nil),
                complete: false, isRequest: true))
        return samples
    }

    static func schema(_ name: String) -> String { "#/components/schemas/\(name)" }

    /// The JSON schema of an operation's answer.
    static func response(_ method: String, _ path: String, _ status: String = "200") -> String {
        "#/paths/\(path.replacingOccurrences(of: "/", with: "~1"))/\(method)/responses/\(status)/content/application~1json/schema"
    }

    static let secret = "rp_" + String(repeating: "a", count: 43)

    static let image = ImageJSON(id: 7, sha256: String(repeating: "ab", count: 32), contentType: "image/png", width: 64, height: 32, bytes: 1234)

    static let variant = NotificationJSON.VariantJSON(
        name: "b", weight: 50, message: "Sale: 30% off", title: "Sale", sound: "default", badge: .number(3), category: "sale", threadId: "w1",
        data: ["campaign": "w1"], localizations: ["fr": localization], actions: actions)
    static let bareVariant = NotificationJSON.VariantJSON(name: "a", weight: 50, message: "Sale")

    static let notification = NotificationJSON(
        id: 1, message: "Winter sale", richType: .img, audience: "topic:sale", state: .delivered, createdBy: "mark", createdAt: time,
        deliverAt: time, expiresAt: time, deletedAt: time, pushStyle: .alert, imageId: 7, url: "https://example.com/sale",
        payloadUrl: "/api/notifications/1?expires=1&signature=x", title: "Winter sale", sound: "default", badge: .unread, category: "sale",
        threadId: "w1", data: ["campaign": "w1"], localizations: ["fr": localization], language: "fr",
        template: .init(name: "welcome", version: 2), deliverAtLocal: "2026-12-01T09:00:00", transactional: false, variants: [variant, variant],
        fallback: FallbackJSON(after: "PT10M"), deliveryRate: 6000, actions: actions, interruptionLevel: .timeSensitive, relevanceScore: 0.5,
        channel: "offers")
    static let bareNotification = NotificationJSON(
        id: 2, message: "Hi", richType: .text, audience: "username:alice", state: .scheduled, createdBy: "alice", createdAt: time,
        deliverAt: time, pushStyle: .silent, payloadUrl: "/api/notifications/2?expires=1&signature=x", category: "richPush", transactional: true)

    static let status = StatusJSON(
        id: 1, state: .partial, targeted: 9, sent: 3, failed: 1, pending: 1, expired: 1, canceled: 1, capped: 2, fetched: 2, displayed: 2,
        opened: 1, dismissed: 1,
        errors: [.init(installationId: "phone", platform: .apns, code: "apns.unregistered", message: "The device is gone.", at: time)],
        nextDueAt: time,
        variants: [
            .init(
                name: "a", targeted: 4, sent: 2, fetched: 1, displayed: 1, opened: 1, dismissed: 0,
                reach: Reach(
                    fetchedWithin1m: 1, fetchedWithin10m: 1, fetchedWithin1h: 1, reached: 1, notReached: 1, fetchSecondsP50: 12.3,
                    fetchSecondsP90: 12.3), actions: ["shop": 1])
        ],
        statePushes: .init(pending: 1, sent: 2, failed: 0), fallbacks: .init(sent: 3, fetchedAfter: 1),
        reach: Reach(
            fetchedWithin1m: 1, fetchedWithin10m: 2, fetchedWithin1h: 2, reached: 2, notReached: 1, fetchSecondsP50: 8, fetchSecondsP90: 340.5),
        actions: ["shop": 1, "remind": 0])
    static let bareStatus = StatusJSON(
        id: 2, state: .scheduled, targeted: 1, sent: 0, failed: 1, pending: 0, expired: 0, canceled: 0, capped: 0, fetched: 0, displayed: 0,
        opened: 0, dismissed: 0, errors: [.init(installationId: "phone", platform: .fcm, code: "hub.notConfigured", message: "No hub.")])

    static let installation = InstallationJSON(
        installationId: "laptop", owner: "alice", platform: .direct, pushChannel: "laptop", tags: ["topic:sale", "username:alice"],
        appVersion: "2.3", applicationName: "richpushd", sdkVersion: "1", timeZone: "Europe/Paris", language: "fr", createdAt: time,
        updatedAt: time, deadAt: time, deadReason: "installation.replaced")
    static let bareInstallation = InstallationJSON(
        installationId: "phone", owner: "alice", platform: .apns, pushChannel: "ab12", tags: [], createdAt: time, updatedAt: time)

    static let feedItem = FeedItemJSON(
        id: 1, message: "Soldes", richTitle: "Soldes d’hiver", richType: .img, data: ["campaign": "w1"], readState: .read,
        userActionState: .activated, action: "shop", actions: deviceActions, interruptionLevel: .active, createdAt: time)
    static let bareFeedItem = FeedItemJSON(
        id: 2, message: "Hi", richType: .text, readState: .unread, userActionState: .noInteraction, createdAt: time)

    static let deliveryResult = DeliveryResultJSON(
        installationId: "laptop", owner: "alice", platform: .direct, variant: "a", language: "fr", state: "sent", reason: "apns.unregistered",
        attempts: 1, sentAt: time, fallbackSentAt: time, fetchedAt: time, fetchedBy: .installation, displayedAt: time, readState: .read,
        userActionState: .dismissed, action: "remind", actionStatus: 204)
    static let bareDeliveryResult = DeliveryResultJSON(
        installationId: "phone", owner: "alice", platform: .apns, state: "pending", attempts: 0, readState: .unread,
        userActionState: .noInteraction)

    static func token(secret: String?) -> TokenJSON {
        TokenJSON(id: "0b6a7f70", name: "ci", owner: "mark", role: .marketer, createdAt: time, expiresAt: time, lastUsedAt: time, token: secret)
    }
    static let bareToken = TokenJSON(id: "0b6a7f71", name: "daemon", owner: "alice", role: .member, createdAt: time)

    static let auditEvent = AuditEventJSON(
        id: 1, at: time, actor: "mark", action: "notification.recalled", target: "1", details: "to topic:sale")
    static let bareAuditEvent = AuditEventJSON(id: 2, at: time, actor: "admin", action: "user.created", target: "alice")

    /// A template whose stored fields are every field a template has.
    static var template: Template {
        get throws {
            let fields = """
                {"message": "Hi {{name}}", "richType": "img", "imageId": 7, "url": "https://example.com", "text": "t",
                 "audience": "topic:sale", "pushStyle": "alert", "title": "Hello", "sound": "default", "badge": 1, "category": "sale",
                 "threadId": "w1", "data": {"campaign": "w1"},
                 "localizations": {"fr": {"message": "Salut", "title": "Bonjour", "text": "t", "url": "https://example.com/fr",
                                          "actions": [{"id": "shop", "label": "Acheter"}]}},
                 "expiresIn": "1d", "fallback": {"after": "PT10M", "style": "alert"}, "deliveryRate": 6000,
                 "actions": [{"id": "shop", "label": "Shop", "kind": "http", "url": "https://shop.example/", "method": "POST", "body": "{}"}],
                 "interruptionLevel": "passive", "relevanceScore": 0.5, "channel": "offers"}
                """
            return try Template(
                TemplateRecord(name: "welcome", version: 2, description: "The welcome", fields: fields, createdBy: "mark", createdAt: .now))
        }
    }
    static var bareTemplate: Template {
        get throws { try Template(TemplateRecord(name: "empty", version: 1, description: nil, fields: "{}", createdBy: "mark", createdAt: .now)) }
    }

    static var newNotification: NewNotificationJSON {
        var body = NewNotificationJSON(
            message: "Winter sale", richType: .img, imageId: 7, url: "https://example.com/sale", text: "Sale", audience: "topic:sale",
            deliverAt: .now, expiresAt: .now.addingTimeInterval(86_400), pushStyle: .alert, idempotencyKey: "sale-1")
        body.deliverAtLocal = "2026-12-01T09:00:00"
        body.expiresIn = "1d"
        body.fallback = FallbackJSON(after: "PT10M", style: "alert")
        body.deliveryRate = 6000
        body.actions = actions
        body.interruptionLevel = .active
        body.relevanceScore = 0.5
        body.channel = "offers"
        body.template = "welcome"
        body.variables = ["name": "Alice"]
        body.title = "Winter sale"
        body.sound = "default"
        body.badge = .unread
        body.category = "sale"
        body.threadId = "w1"
        body.data = ["campaign": "w1"]
        body.localizations = ["fr": localization]
        body.transactional = false
        body.variants = [
            .init(
                name: "a", weight: 50, message: "Sale", title: "Sale", sound: "default", badge: .number(1), category: "sale", threadId: "w1",
                data: ["campaign": "w1"], localizations: ["fr": localization], actions: actions),
            .init(
                name: "b", weight: 50, message: "Sale!", title: "Sale!", sound: "default", badge: .number(2), category: "sale", threadId: "w1",
                data: ["campaign": "w1"], localizations: ["fr": localization], actions: actions),
        ]
        return body
    }
}
