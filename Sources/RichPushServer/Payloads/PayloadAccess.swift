import Foundation
import RichPushCore
import RichPushStore

/// Whether a payload fetch is answered, and how: the one decision the event loop's fast path and the router share,
/// so neither can serve what the other would refuse.
enum PayloadAccess: Equatable {
    /// The payload of `record` is served; `recordsFetch` when the caller receives the notification, or holds a signed
    /// link (made for a recipient's device), whose first fetch counts in the funnel.
    case served(NotificationRecord, recordsFetch: Bool)
    /// No such notification, or one the caller may not know of: a 404, so ids of others' notifications are not told
    /// apart from missing ones.
    case notFound
    /// Its payload is no longer served: a 410 with why.
    case gone(reason: String)

    /// The decision for `caller` (nil: a valid signed link, which opens the payload to whoever holds it), who
    /// `isRecipient` or not, at `now`.
    static func decide(_ record: NotificationRecord?, caller: AuthenticatedUser?, isRecipient: Bool, at now: Date) -> PayloadAccess {
        guard let record else { return .notFound }
        if let refusal = refusal(of: record, caller: caller, isRecipient: isRecipient, at: now) { return refusal }
        return .served(record, recordsFetch: recordsFetch(caller: caller, isRecipient: isRecipient))
    }

    /// Why `record` is not served to `caller`, nil when it is: the decision without a copy of the record, for the
    /// fast path, which reads it where memory holds it.
    static func refusal(of record: NotificationRecord, caller: AuthenticatedUser?, isRecipient: Bool, at now: Date) -> PayloadAccess? {
        if let caller, !mayRead(record, caller: caller, isRecipient: isRecipient) { return .notFound }
        if record.deletedAt != nil { return .gone(reason: "was recalled") }
        if record.canceledAt != nil { return .gone(reason: "was canceled") }
        if record.isGone(at: now) { return .gone(reason: "has expired") }
        return nil
    }

    /// Whether a fetch that is served counts in the funnel.
    static func recordsFetch(caller: AuthenticatedUser?, isRecipient: Bool) -> Bool {
        caller == nil || isRecipient
    }

    /// Admins and marketers read every notification, others those they created or receive.
    static func mayRead(_ record: NotificationRecord, caller: AuthenticatedUser, isRecipient: Bool) -> Bool {
        caller.role.mayRunCampaigns || record.createdBy == caller.username || isRecipient
    }
}
