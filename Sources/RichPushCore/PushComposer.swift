/// Builds the push of each claimed delivery: the owner's A/B variant, the localization for its installation's
/// language, and the owner's unread count where the notification's badge shows it.
public enum PushComposer {
    /// The jobs of `batch`, in its order. A notification's devices share a few pushes, one per variant, language and
    /// badge: each is built once.
    public static func jobs(of batch: ClaimedBatch) -> [DeliveryJob] {
        var pushes: [PushKey: (push: SilentPush, language: String?)] = [:]
        var jobs: [DeliveryJob] = []
        jobs.reserveCapacity(batch.count)
        for delivery in batch {
            guard let notification = batch.notifications[delivery.notificationId] else { continue }
            // Counts are read only for owners whose badge shows theirs, and a push whose badge does not ignores it:
            // the variant is looked at only when a push is built.
            let unreadCount = batch.unreadCounts[delivery.owner]
            let key = PushKey(
                notificationId: delivery.notificationId, variant: delivery.variant, language: delivery.language, unreadCount: unreadCount)
            let (push, language) =
                pushes[key]
                ?? {
                    let shown = notification.shown(in: delivery.variant)
                    let localized = shown.content.localization(forInstallationLanguage: delivery.language)
                    let built = SilentPush(
                        richId: delivery.notificationId, richType: notification.richType, message: shown.message,
                        style: notification.pushStyle, content: shown.content, localization: localized?.localization,
                        unreadCount: unreadCount)
                    pushes[key] = (built, localized?.tag)
                    return (built, localized?.tag)
                }()
            // A hub that sends to a whole audience at once cannot leave out the devices the limits hold back.
            let heldBackPerDevice = batch.limitsActive && notification.purpose == .marketing
            jobs.append(
                DeliveryJob(
                    deliveryId: delivery.deliveryId, attempt: delivery.attempt, notificationId: delivery.notificationId, push: push,
                    audience: notification.audience, expiresAt: notification.expiresAt, installationId: delivery.installationId,
                    owner: delivery.owner, platform: delivery.platform, pushChannel: delivery.pushChannel, language: language,
                    variant: delivery.variant,
                    variesByDevice: notification.content.variesByDevice || !notification.variants.isEmpty || heldBackPerDevice))
        }
        return jobs
    }

    /// What makes two devices' pushes of one notification differ: the owner's variant and badge, the installation's
    /// language.
    private struct PushKey: Hashable {
        var notificationId: Int64
        var variant: String?
        var language: String?
        var unreadCount: Int?
    }
}
