import Foundation
import RichPushCore
import RichPushStore

// A notification's results in the API's JSON shapes (RichPushCore's `API/`), and a delivery as a row of the CSV export.

extension DeliveryResultJSON {
    init(_ result: DeliveryResult) {
        self.init(
            installationId: result.installationId, owner: result.owner, platform: result.platform, variant: result.variant,
            language: result.language, state: result.state, reason: result.reason, attempts: result.attempts,
            sentAt: result.sentAt.map(Timestamp.format), fallbackSentAt: result.fallbackSentAt.map(Timestamp.format),
            fetchedAt: result.fetchedAt.map(Timestamp.format), fetchedBy: result.fetchedBy,
            displayedAt: result.displayedAt.map(Timestamp.format), readState: result.readState, userActionState: result.userActionState,
            action: result.action, actionStatus: result.actionStatus)
    }

    /// The CSV export's columns, named as the JSON fields are; columns added later come last, so a reader that takes
    /// them by position keeps working.
    static let csvHeader = [
        "installationId", "owner", "platform", "variant", "language", "state", "reason", "attempts", "sentAt", "fetchedAt",
        "displayedAt", "readState", "userActionState", "fallbackSentAt", "fetchedBy", "action", "actionStatus",
    ]

    /// The fields in the order of ``csvHeader``; what is absent is empty.
    var csvFields: [String] {
        [
            installationId, owner, platform.rawValue, variant ?? "", language ?? "", state, reason ?? "", String(attempts), sentAt ?? "",
            fetchedAt ?? "", displayedAt ?? "", readState.rawValue, userActionState.rawValue, fallbackSentAt ?? "", fetchedBy?.rawValue ?? "",
            action ?? "", actionStatus.map(String.init) ?? "",
        ]
    }
}

extension TimelineJSON.Bucket {
    init(_ bucket: TimelineBucket) {
        self.init(
            at: Timestamp.format(bucket.start), sent: bucket.sent, fetched: bucket.fetched, displayed: bucket.displayed,
            opened: bucket.opened, dismissed: bucket.dismissed, fallbacks: bucket.fallbacks)
    }
}
