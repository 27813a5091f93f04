import Foundation
import Hummingbird
import RichPushCore
import RichPushStore

struct DeliveryResultJSON: Encodable {
    var installationId: String
    var owner: String
    var platform: Platform
    var variant: String?
    var language: String?
    var state: String
    var reason: String?
    var attempts: Int
    var sentAt: String?
    var fetchedAt: String?
    var displayedAt: String?
    var readState: ReadState
    var userActionState: UserActionState

    init(_ result: DeliveryResult) {
        installationId = result.installationId
        owner = result.owner
        platform = result.platform
        variant = result.variant
        language = result.language
        state = result.state
        reason = result.reason
        attempts = result.attempts
        sentAt = result.sentAt.map(Timestamp.format)
        fetchedAt = result.fetchedAt.map(Timestamp.format)
        displayedAt = result.displayedAt.map(Timestamp.format)
        readState = result.readState
        userActionState = result.userActionState
    }

    /// The CSV export's columns, named as the JSON fields are.
    static let csvHeader = [
        "installationId", "owner", "platform", "variant", "language", "state", "reason", "attempts", "sentAt", "fetchedAt",
        "displayedAt", "readState", "userActionState",
    ]

    /// The fields in the order of ``csvHeader``; what is absent is empty.
    var csvFields: [String] {
        [
            installationId, owner, platform.rawValue, variant ?? "", language ?? "", state, reason ?? "", String(attempts), sentAt ?? "",
            fetchedAt ?? "", displayedAt ?? "", readState.rawValue, userActionState.rawValue,
        ]
    }
}

struct TimelineJSON: ResponseEncodable {
    struct Bucket: Encodable {
        var at: String
        var sent: Int
        var fetched: Int
        var displayed: Int
        var opened: Int
        var dismissed: Int

        init(_ bucket: TimelineBucket) {
            at = Timestamp.format(bucket.start)
            sent = bucket.sent
            fetched = bucket.fetched
            displayed = bucket.displayed
            opened = bucket.opened
            dismissed = bucket.dismissed
        }
    }

    var step: Int
    var buckets: [Bucket]
}
