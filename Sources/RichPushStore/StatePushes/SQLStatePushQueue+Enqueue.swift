public import Foundation
public import RichPushCore
import SQLKit

/// Whose devices a state push goes to.
enum StatePushRecipients {
    /// One user, who changed the state on one of its devices.
    case user(String)
    /// Everyone in the notification's feed: it was recalled.
    case feed(ofNotification: Int64)
}

extension SQLStatePushQueue {
    /// The platforms whose devices hear of state changes by push; direct devices hear on their stream.
    static let statePushPlatforms: [Platform] = [.apns, .fcm, .wns, .webpush]
    /// At most one state push per device and notification this often; the latest state waits out the rest.
    static let statePushInterval: Int64 = 10_000
    /// A state push not delivered within a day is not worth delivering.
    static let statePushLifetime: TimeInterval = 86_400

    /// Puts a state push for every live remote device of `recipients` but `origin` in the outbox, in the caller's
    /// transaction. A device with one not yet sent gets the newer state in its place; one sent less than
    /// ``statePushInterval`` ago falls due when that interval ends.
    static func enqueueStatePushes(
        _ event: PushEvent, notificationId: Int64, recipients: StatePushRecipients, except origin: String?, now: Date, in db: any SQLDatabase
    ) async throws {
        let (kind, read, action): (String, String?, String?)
        switch event {
        case .rich: return
        case .state(let readState, let actionState): (kind, read, action) = ("state", readState.rawValue, actionState.rawValue)
        case .deleted: (kind, read, action) = ("deleted", nil, nil)
        }
        let nowMs = EpochMilliseconds(now)
        let owners: SQLQueryString =
            switch recipients {
            case .user(let username): "owner = \(bind: username)"
            case .feed(let notificationId): "owner IN (SELECT username FROM feed_entries WHERE notification_id = \(bind: notificationId))"
            }
        let platforms = statePushPlatforms.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let exclusion: SQLQueryString = origin.map { "AND id <> \(bind: $0)" } ?? ""
        try await db.raw(
            """
            INSERT INTO state_pushes (installation_id, notification_id, owner, event, read_state, user_action_state, version, state,
                due_at, attempts, updated_at)
            SELECT id, \(bind: notificationId), owner, \(bind: kind), \(bind: read), \(bind: action), 1, 'pending', \(bind: nowMs), 0,
                \(bind: nowMs)
            FROM installations WHERE \(owners) AND platform IN (\(unsafeRaw: platforms)) AND dead_at IS NULL \(exclusion)
            ON CONFLICT (installation_id, notification_id) DO UPDATE SET event = excluded.event, read_state = excluded.read_state,
                user_action_state = excluded.user_action_state, version = state_pushes.version + 1, state = 'pending', attempts = 0,
                error_code = NULL, updated_at = excluded.updated_at,
                due_at = CASE WHEN state_pushes.last_sent_at + \(unsafeRaw: String(statePushInterval)) > excluded.due_at
                    THEN state_pushes.last_sent_at + \(unsafeRaw: String(statePushInterval)) ELSE excluded.due_at END
            """
        ).run()
    }
}
