public import Foundation
public import RichPushCore
import SQLKit

extension SQLFallbackQueue {
    /// Makes the fallback of each silent push in `results` that a hub accepted for a notification with a fetch
    /// deadline, due that long from `now`; a delivery sent twice (a lease that ran out) keeps its first.
    static func schedule(_ results: [RecordedAttempt], now: Date, in db: any SQLDatabase) async throws {
        let sent = results.filter { $0.outcome == .sent && platforms.contains($0.platform) }
        guard !sent.isEmpty else { return }
        var deadlines: [Int64: Int64] = [:]
        for chunk in Set(sent.map(\.notificationId)).sorted().chunked(SQLNotificationRepository.insertChunk) {
            for row in try await db.select().columns("id", "fallback_after").from("notifications").where(SQLIdSet("id", in: Array(chunk)))
                .where("fallback_after", .isNot, SQLLiteral.null).where("push_style", .equal, PushStyle.silent.rawValue).all()
            {
                deadlines[try row.int64("id")] = try row.int64("fallback_after")
            }
        }
        guard !deadlines.isEmpty else { return }
        let nowMs = EpochMilliseconds(now)
        let rows = sent.compactMap { job in deadlines[job.notificationId].map { (job, nowMs + $0) } }
        for chunk in rows.chunked(SQLNotificationRepository.insertChunk / 8) {
            var insert = db.insert(into: "fallbacks").columns(
                "delivery_id", "notification_id", "installation_id", "owner", "state", "attempts", "due_at")
            for (job, due) in chunk {
                insert = insert.values(job.deliveryId, job.notificationId, job.installationId, job.owner, FallbackState.pending, 0, due)
            }
            try await insert.ignoringConflicts(with: ["delivery_id"]).run()
        }
    }

    /// Records what the hubs answered of fallbacks: a retry waits in its row, a gone device fails it and its installation.
    static func record(_ results: [RecordedAttempt], now: Date, in db: any SQLDatabase) async throws {
        guard !results.isEmpty else { return }
        let nowMs = EpochMilliseconds(now)
        // Each row is given the attempt its claim made: a claim that held it in memory did not count it in the row.
        let sent = Dictionary(grouping: results.filter { $0.outcome == .sent }, by: \.attempt)
        for (attempt, jobs) in sent.sorted(by: { $0.key < $1.key }) {
            for chunk in jobs.map(\.deliveryId).chunked(SQLNotificationRepository.insertChunk) {
                try await db.update("fallbacks").set("state", to: FallbackState.sent).set("finished_at", to: nowMs)
                    .set("lease_until", to: Int64?.none).set("reason", to: String?.none).set("attempts", to: Int64(attempt))
                    .where(SQLIdSet("delivery_id", in: Array(chunk))).run()
            }
        }
        for result in results {
            let row = db.update("fallbacks").set("lease_until", to: Int64?.none).where("delivery_id", .equal, result.deliveryId)
            switch result.outcome {
            case .sent:
                continue
            case .retry(let after, let code, _):
                try await row.set("due_at", to: EpochMilliseconds(now + after)).set("reason", to: code).set("attempts", to: Int64(result.attempt))
                    .run()
            case .postponed(let after, let code, _):
                // Not attempted: the attempt its claim counted is given back.
                try await row.set("due_at", to: EpochMilliseconds(now + after)).set("reason", to: code)
                    .set("attempts", to: Int64(result.attempt - 1)).run()
            case .failed(let code, _), .deviceGone(let code, _):
                try await row.set("state", to: FallbackState.failed).set("finished_at", to: nowMs).set("reason", to: code)
                    .set("attempts", to: Int64(result.attempt)).run()
                if case .deviceGone = result.outcome { try await SQLOutbox.markGone([result.installationId], code: code, at: nowMs, in: db) }
            }
        }
    }

    /// A claimed fallback with what decides whether it still goes: its device as registered now, its user's feed
    /// entry, its notification.
    struct Candidate {
        var delivery: ClaimedDelivery
        var installationOwner: String?
        var deviceGone: Bool
        /// The installation's zone, which quiet hours are read in.
        var timeZone: String?
        var fetched: Bool
        /// Whether any of its user's devices reported the alert displayed.
        var displayed: Bool
        var readState: ReadState?
        var userActionState: UserActionState?
        var removed: Bool
        var recalled: Bool
        var expiresAt: Date?
        var purpose: NotificationPurpose

        /// Why the fallback is not sent, or nil when it goes.
        func reasonToSkip(at now: Date, audiencePlatforms: Set<Platform>) -> String? {
            if recalled { return "notification.recalled" }
            if let expiresAt, expiresAt <= now { return "notification.expired" }
            if fetched { return "payload.fetched" }
            if displayed { return "notification.displayed" }
            if userActionState == .activated { return "notification.opened" }
            if userActionState == .dismissed { return "notification.dismissed" }
            if readState == .read { return "notification.read" }
            if removed { return "notification.removed" }
            if installationOwner != delivery.owner { return "installation.changed" }
            if deviceGone { return "installation.gone" }
            if audiencePlatforms.contains(delivery.platform) || !SQLFallbackQueue.platforms.contains(delivery.platform) {
                return "hub.audienceOnly"
            }
            return nil
        }

        /// When the quiet hours `limits` keep end for this fallback's device, or nil when it may go now: a marketer's
        /// fallback is an alert, which quiet hours exist to keep off a device's night.
        func quietUntil(_ limits: CampaignLimits, now: Date) -> Date? {
            guard purpose == .marketing, let quietHours = limits.quietHours else { return nil }
            return quietHours.end(after: now, in: timeZone.flatMap(TimeZone.init(identifier:)) ?? limits.defaultTimeZone)
        }
    }

    /// The fallbacks `filter` picks, each with the attempt this claim makes and what decides whether it still goes.
    static func candidates(_ filter: any SQLExpression, in db: any SQLDatabase) async throws -> [Candidate] {
        let rows = try await db.raw(
            """
            SELECT fb.delivery_id, fb.notification_id, fb.installation_id, fb.owner, fb.attempts,
                i.owner AS installation_owner, i.platform, i.push_channel, i.language, i.dead_at, i.time_zone,
                f.fetched_at, f.read_state, f.user_action_state, f.removed_at, f.variant,
                n.canceled_at, n.deleted_at, n.expires_at, n.purpose,
                (SELECT COUNT(*) FROM receipts r JOIN installations ri ON ri.id = r.installation_id
                    WHERE r.notification_id = fb.notification_id AND r.event = \(bind: ReceiptEvent.displayed.rawValue)
                        AND ri.owner = fb.owner) AS receipts
            FROM fallbacks fb
            JOIN notifications n ON n.id = fb.notification_id
            LEFT JOIN installations i ON i.id = fb.installation_id
            LEFT JOIN feed_entries f ON f.notification_id = fb.notification_id AND f.username = fb.owner
            WHERE \(filter)
            """
        ).all()
        return try rows.map { row in
            let platform = try row.optionalString("platform").flatMap(Platform.init(rawValue:)) ?? .direct
            return Candidate(
                delivery: ClaimedDelivery(
                    deliveryId: try row.int64("delivery_id"), attempt: try row.int("attempts") + 1,
                    notificationId: try row.int64("notification_id"), installationId: try row.string("installation_id"),
                    owner: try row.string("owner"), platform: platform, pushChannel: try row.optionalString("push_channel") ?? "",
                    language: try row.optionalString("language"), variant: try row.optionalString("variant")),
                installationOwner: try row.optionalString("installation_owner"), deviceGone: try row.optionalDate("dead_at") != nil,
                timeZone: try row.optionalString("time_zone"), fetched: try row.optionalDate("fetched_at") != nil,
                displayed: try row.int("receipts") > 0,
                readState: try row.optionalString("read_state").flatMap(ReadState.init(rawValue:)),
                userActionState: try row.optionalString("user_action_state").flatMap(UserActionState.init(rawValue:)),
                removed: try row.optionalDate("removed_at") != nil,
                recalled: try row.optionalDate("canceled_at") != nil || row.optionalDate("deleted_at") != nil,
                expiresAt: try row.optionalDate("expires_at"),
                purpose: try row.enumeration("purpose", as: NotificationPurpose.self))
        }
    }

    /// How many fallbacks of notification `id` were sent, and how many of their devices (or, for a device whose fetch
    /// is not known, its user) fetched the payload after.
    static func tally(of id: Int64, in db: any SQLDatabase) async throws -> FallbackTally {
        let row = try await db.raw(
            """
            SELECT COUNT(*) AS sent,
                COALESCE(SUM(CASE WHEN COALESCE(d.fetched_at, f.fetched_at) >= fb.finished_at THEN 1 ELSE 0 END), 0) AS fetched_after
            FROM fallbacks fb
            LEFT JOIN installation_fetches d ON d.notification_id = fb.notification_id AND d.installation_id = fb.installation_id
            LEFT JOIN feed_entries f ON f.notification_id = fb.notification_id AND f.username = fb.owner
            WHERE fb.notification_id = \(bind: id) AND fb.state = \(bind: FallbackState.sent)
            """
        ).first()
        return FallbackTally(sent: try row?.int("sent") ?? 0, fetchedAfter: try row?.int("fetched_after") ?? 0)
    }
}
