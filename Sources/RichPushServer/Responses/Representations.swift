import Foundation
import RichPushCore
import RichPushStore

// The API's JSON shapes (RichPushCore's `API/`, shared with the clients) built from the store's records, which stay
// out of Core. Times are RFC 3339 strings in UTC.

extension ImageJSON {
    init(_ image: ImageRecord) {
        self.init(
            id: image.id, sha256: image.sha256, contentType: image.contentType, width: image.width, height: image.height,
            bytes: image.byteCount)
    }
}

extension NotificationJSON {
    /// `record` as a reader whose `Accept-Language` picked `localization` sees it; `showsActionRequests` whether the
    /// reader may see the requests of `http` actions (their addresses and bodies may hold the target's credentials).
    init(
        _ record: NotificationRecord, state: NotificationState, payloadURL: String,
        localization: (tag: String, localization: Localization)? = nil, showsActionRequests: Bool = true
    ) {
        var imageId: Int64?
        var url: String?
        switch record.payload(in: localization?.localization) {
        case .image(let id): imageId = id
        case .url(let link): url = link
        case .text: break
        }
        let content = record.content
        self.init(
            id: record.id, message: localization?.localization.message ?? record.message, richType: record.richType,
            audience: record.audience, state: state, createdBy: record.createdBy, createdAt: Timestamp.format(record.createdAt),
            deliverAt: Timestamp.format(record.deliverAt), expiresAt: record.expiresAt.map(Timestamp.format),
            deletedAt: record.deletedAt.map(Timestamp.format), pushStyle: record.pushStyle, imageId: imageId, url: url,
            payloadUrl: payloadURL, title: localization?.localization.title ?? content.title, sound: content.sound, badge: content.badge,
            category: content.category ?? PushContent.defaultCategory, threadId: content.threadId, data: content.data,
            localizations: content.localizations, language: localization?.tag,
            template: record.template.map { TemplateJSON(name: $0.name, version: $0.version) },
            deliverAtLocal: record.deliverAtLocal?.description, transactional: record.purpose == .transactional,
            variants: record.variants.isEmpty ? nil : record.variants.map(VariantJSON.init),
            fallback: record.fallbackAfter.map(FallbackJSON.init(afterSeconds:)), deliveryRate: record.deliveryRate,
            actions: content.actions.map { showsActionRequests ? $0 : $0.map(\.withoutRequest) }, interruptionLevel: content.interruptionLevel,
            relevanceScore: content.relevanceScore, channel: content.channel)
        if !showsActionRequests {
            variants = variants?.map { variant in
                var shown = variant
                shown.actions = variant.actions?.map(\.withoutRequest)
                return shown
            }
        }
    }
}

extension NotificationJSON.VariantJSON {
    init(_ variant: Variant) {
        self.init(
            name: variant.name, weight: variant.weight, message: variant.message, title: variant.content.title,
            sound: variant.content.sound, badge: variant.content.badge, category: variant.content.category,
            threadId: variant.content.threadId, data: variant.content.data, localizations: variant.content.localizations,
            actions: variant.content.actions)
    }
}

extension StatusJSON {
    init(
        id: Int64, state: NotificationState, counts: NotificationCounts, nextDueAt: Date? = nil, variants: [VariantFunnel] = [],
        statePushes: [String: Int] = [:], reach: NotificationReach = NotificationReach()
    ) {
        let tally = counts.tally
        self.init(
            id: id, state: state, targeted: tally.targeted, sent: tally.sent, failed: tally.failed, pending: tally.pending,
            expired: tally.expired, canceled: tally.canceled, capped: tally.capped, fetched: counts.fetched, displayed: counts.displayed,
            opened: counts.opened, dismissed: counts.dismissed,
            errors: counts.errors.map {
                DeliveryErrorJSON(
                    installationId: $0.installationId, platform: $0.platform, code: $0.code, message: $0.message,
                    at: $0.at.map(Timestamp.format))
            },
            nextDueAt: nextDueAt.map(Timestamp.format),
            variants: variants.isEmpty
                ? nil
                : variants.map {
                    VariantFunnelJSON(
                        name: $0.name, targeted: $0.targeted, sent: $0.sent, fetched: $0.fetched, displayed: $0.displayed,
                        opened: $0.opened, dismissed: $0.dismissed, reach: reach.variants[$0.name] ?? Reach(), actions: $0.actions)
                },
            statePushes: StatePushesJSON(
                pending: statePushes["pending"] ?? 0, sent: statePushes["sent"] ?? 0, failed: statePushes["failed"] ?? 0),
            fallbacks: FallbacksJSON(sent: counts.fallbacks.sent, fetchedAfter: counts.fallbacks.fetchedAfter), reach: reach.total,
            actions: counts.actions)
    }
}

extension InstallationJSON {
    init(_ record: InstallationRecord) {
        self.init(
            installationId: record.id, owner: record.owner, platform: record.platform, pushChannel: record.pushChannel,
            tags: record.allTags.sorted(), appVersion: record.appVersion, applicationName: record.applicationName,
            sdkVersion: record.sdkVersion, timeZone: record.timeZone, language: record.language,
            createdAt: Timestamp.format(record.createdAt), updatedAt: Timestamp.format(record.updatedAt),
            deadAt: record.deadAt.map(Timestamp.format), deadReason: record.deadReason)
    }
}

extension FeedItemJSON {
    /// `item` in the language a reader's `Accept-Language` picks.
    init(_ item: FeedItem, acceptLanguage: String?) {
        let localization = item.content.localization(forAcceptLanguage: acceptLanguage)?.localization
        let actions = item.content.deviceActions(in: localization)
        self.init(
            id: item.id, message: localization?.message ?? item.message, richTitle: localization?.title ?? item.content.title,
            richType: item.richType, data: item.content.data.isEmpty ? nil : item.content.data, readState: item.readState,
            userActionState: item.userActionState, action: item.action, actions: actions.isEmpty ? nil : actions,
            interruptionLevel: item.content.interruptionLevel, createdAt: Timestamp.format(item.createdAt))
    }
}

extension TokenJSON {
    /// `token` is the secret, given only in the answer that creates the token.
    init(_ record: TokenRecord, token: String? = nil) {
        self.init(
            id: record.id, name: record.name, owner: record.owner, role: record.role, createdAt: Timestamp.format(record.createdAt),
            expiresAt: record.expiresAt.map(Timestamp.format), lastUsedAt: record.lastUsedAt.map(Timestamp.format), token: token)
    }
}

extension AuditEventJSON {
    init(_ event: AuditEvent) {
        self.init(
            id: event.id, at: Timestamp.format(event.at), actor: event.actor, action: event.action, target: event.target,
            details: event.details)
    }
}

extension WebhookJSON {
    /// `secret` is given only in the answer that creates the webhook.
    init(_ record: WebhookRecord, secret: String? = nil) {
        self.init(
            id: record.id, url: record.url, events: record.events, createdBy: record.createdBy, createdAt: Timestamp.format(record.createdAt),
            enabled: record.disabledAt == nil, disabledAt: record.disabledAt.map(Timestamp.format), disabledReason: record.disabledReason,
            failingSince: record.failingSince.map(Timestamp.format), secret: secret)
    }
}

extension WebhookAttemptJSON {
    init(_ attempt: WebhookAttemptRecord) {
        self.init(
            id: attempt.id, messageId: attempt.messageId, attemptedAt: Timestamp.format(attempt.attemptedAt), events: attempt.eventCount,
            status: attempt.result.status, error: attempt.result.error, durationMs: Int(attempt.result.duration * 1000))
    }
}
