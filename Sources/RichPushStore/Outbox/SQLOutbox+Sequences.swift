public import Foundation
public import RichPushCore
import SQLKit

/// A campaign's first attempts claimed in order of the outbox's ids, a range at a time, on PostgreSQL.
///
/// A claim through the index of pending deliveries writes a lease into each row it takes, and each row written costs
/// an entry in that index. But a notification due at one instant has its outbox written in order of ids and sent in
/// the same order, so its deliveries need no index to be found and no lease of their own: each is written
/// `in_sequence`, `delivery_sequences` keeps how far its notification's deliveries are claimed, and one row in
/// `sequence_claims` leases a claimed range until every delivery of it is recorded. A delivery that must wait on its
/// own, a retry, one held back by quiet hours, one of a claim whose lease ran out, leaves the sequence for the pending
/// index.
///
/// Deliveries due at their devices' local times, those on a hub that sends to whole audiences, and every delivery on
/// SQLite, are claimed through the index. In a 100,000-device APNs fan-out the database spent 13.7 µs a push against
/// 16.6: the outbox's insert 5.6 µs against 7.0, the claim's read 2.3 against its `UPDATE`'s 3.7.
extension SQLOutbox {
    /// A range of one notification's deliveries, claimed in its sequence.
    struct SequenceRange {
        var notificationId: Int64
        var first: Int64
        var last: Int64

        func contains(_ delivery: ClaimedDelivery) -> Bool {
            delivery.notificationId == notificationId && (first...last).contains(delivery.deliveryId)
        }
    }

    /// Takes the next ranges of released notifications' sequences, at most `limit` delivery ids in all, in the claim
    /// transaction of `db`, none of the notifications `heldBack`: each sequence's cursor is locked, waiting for a claim of another process to commit, and
    /// moved past its range. Each delivery is read with the attempt this claim makes, which is counted when its outcome
    /// is recorded; those on `audiencePlatforms`, where a hub that sends to a whole audience finds them, leave their
    /// sequence for the pending index. ``leaseSequenceRanges(_:of:until:in:)`` leases the ranges once the deliveries to send are
    /// known.
    ///
    /// The cursor stays locked until the claim commits, so no other claim finds a range this one took and has not
    /// leased yet. A range ends at the last delivery committed: a chunk of the outbox being written has higher ids than
    /// any before it. The sequence of a canceled or recalled notification is ended here.
    static func claimSequences(
        upTo limit: Int, audiencePlatforms: Set<Platform>, withZones: Bool, heldBack: Set<Int64> = [], in db: any SQLDatabase
    ) async throws -> (claimed: [ClaimedRow], ranges: [SequenceRange]) {
        var claimed: [ClaimedRow] = []
        var ranges: [SequenceRange] = []
        var left = Int64(limit)
        var after: Int64 = 0
        while left > 0 {
            // One snapshot sees `whole` and the bounds: once the outbox is whole, every chunk of it is seen.
            let sequence = try await db.raw(
                """
                SELECT s.notification_id, n.outbox_through IS NULL AS whole,
                    n.canceled_at IS NOT NULL OR n.deleted_at IS NOT NULL AS removed,
                    (SELECT MIN(id) FROM deliveries d WHERE d.notification_id = s.notification_id AND d.id > s.claimed_through) AS first,
                    (SELECT MAX(id) FROM deliveries d WHERE d.notification_id = s.notification_id AND d.id > s.claimed_through) AS last
                FROM delivery_sequences s JOIN notifications n ON n.id = s.notification_id
                WHERE (n.released_at IS NOT NULL OR n.canceled_at IS NOT NULL OR n.deleted_at IS NOT NULL)
                    AND s.notification_id > \(bind: after) AND NOT \(SQLIdSet("notification_id", of: "s", in: heldBack))
                ORDER BY s.notification_id LIMIT 1 FOR UPDATE OF s
                """
            ).first()
            guard let sequence else { break }
            let notificationId = try sequence.int64("notification_id")
            after = notificationId
            let whole = try sequence.decode(column: "whole", as: Bool.self)
            let ends = "DELETE FROM delivery_sequences WHERE notification_id = \(bind: notificationId)" as SQLQueryString
            // A cancel or recall leaves the sequence to the claims: waiting for a claim that holds it, while holding
            // deliveries of the notification that a claim waiting for the sequence had taken, deadlocked the two.
            if try sequence.decode(column: "removed", as: Bool.self) {
                try await db.raw(ends).run()
                continue
            }
            guard let first = try sequence.decode(column: "first", as: Int64?.self),
                let last = try sequence.decode(column: "last", as: Int64?.self)
            else {
                if whole { try await db.raw(ends).run() }
                continue
            }
            let end = min(first + left - 1, last)
            try await db.raw(
                whole && end == last
                    ? ends : "UPDATE delivery_sequences SET claimed_through = \(bind: end) WHERE notification_id = \(bind: notificationId)"
            ).run()
            let rows = try await take(
                unclaimedInSequence(notificationId, from: first, through: end), leasingUntil: nil, withZones: withZones, in: db)
            let audience = rows.filter { audiencePlatforms.contains($0.platform) }
            for chunk in audience.map(\.key).chunked(SQLNotificationRepository.insertChunk) {
                try await db.update("deliveries").set("in_sequence", to: SQLLiteral.boolean(false)).where(SQLDeliveryKeys(chunk)).run()
            }
            claimed += audience.isEmpty ? rows : rows.filter { !audiencePlatforms.contains($0.platform) }
            ranges.append(SequenceRange(notificationId: notificationId, first: first, last: end))
            left -= end - first + 1
        }
        return (claimed, ranges)
    }

    /// Leases each of `ranges` that gave out any of `deliveries` until `leaseUntil`, by one row in `sequence_claims`; returns
    /// each claim with the deliveries it gave out. A range none of whose deliveries is sent needs no lease.
    static func leaseSequenceRanges(
        _ ranges: [SequenceRange], of deliveries: [ClaimedDelivery], until leaseUntil: Int64, in db: any SQLDatabase
    ) async throws -> [(claim: Int64, deliveryIds: [Int64])] {
        var claims: [(claim: Int64, deliveryIds: [Int64])] = []
        for range in ranges {
            let deliveryIds = deliveries.compactMap { range.contains($0) ? $0.deliveryId : nil }
            guard !deliveryIds.isEmpty else { continue }
            let claim = try await db.insert(into: "sequence_claims").columns("notification_id", "first_id", "last_id", "lease_until")
                .values(range.notificationId, range.first, range.last, leaseUntil).returning("id").first()!.int64("id")
            claims.append((claim, deliveryIds))
        }
        return claims
    }

    /// Gives the unrecorded deliveries of a few claims whose lease ran out by `nowMs` to the pending index, due at
    /// once, with the attempt their claim made counted, as a lease running out in a row counts it.
    ///
    /// A claim's range at a time: one `UPDATE … FROM` the ended claims was planned, for the many claims that end none,
    /// as a hash of the whole outbox, 7 ms a claim in a 100,000-device fan-out.
    static func reopenLapsedSequenceClaims(at nowMs: Int64, in db: any SQLDatabase) async throws {
        let ended = try await db.raw(
            """
            DELETE FROM sequence_claims WHERE id = ANY(ARRAY(
                SELECT id FROM sequence_claims WHERE lease_until < \(bind: nowMs) ORDER BY lease_until LIMIT 10 FOR UPDATE SKIP LOCKED))
            RETURNING notification_id, first_id, last_id
            """
        ).all()
        for claim in ended {
            try await db.update("deliveries").set("in_sequence", to: SQLLiteral.boolean(false)).set("attempts", to: oneMoreAttempt)
                .where(try unclaimedInSequence(claim.int64("notification_id"), from: claim.int64("first_id"), through: claim.int64("last_id")))
                .run()
        }
    }

    /// Deliveries out of their notifications' sequences, which the pending index holds: its own predicate, so PostgreSQL
    /// reads them through it.
    static let outOfSequence = SQLRaw("NOT in_sequence")

    /// The pending deliveries of notification `id` from `first` through `last` still in its sequence, none of them
    /// leased in its row (a hub that sends to a whole audience takes its deliveries so).
    static func unclaimedInSequence(_ id: Int64, from first: Int64, through last: Int64) -> some SQLExpression {
        SQLQueryString(
            """
            notification_id = \(bind: id) AND id BETWEEN \(bind: first) AND \(bind: last) AND state = 'pending' AND in_sequence \
            AND lease_until IS NULL
            """)
    }

    /// Starts notification `id`'s sequence, or keeps it, once deliveries of it are written into it.
    static func openSequence(of id: Int64, in db: any SQLDatabase) async throws {
        try await db.insert(into: "delivery_sequences").columns("notification_id", "claimed_through").values(id, Int64(0))
            .ignoringConflicts(with: ["notification_id"]).run()
    }

    /// Ends the sequence claims whose last unrecorded deliveries `deliveryIds` are, about to be recorded in this
    /// transaction: first, so a claim's row is always locked before its deliveries, as a lapsed claim is reopened.
    /// ``SequenceClaims/finish(_:)`` lets go of them once the transaction commits.
    static func endSequenceClaims(completedBy deliveryIds: [Int64], in sequences: SequenceClaims, db: any SQLDatabase) async throws {
        let done = sequences.completed(by: deliveryIds)
        guard !done.isEmpty else { return }
        try await db.delete(from: "sequence_claims").where("id", .in, done).run()
    }

    /// Keeps the sequence claims that gave out `deliveryIds` for another lease, until `leaseUntil`.
    static func extendSequenceClaims(of deliveryIds: [Int64], in sequences: SequenceClaims, until leaseUntil: Int64, db: any SQLDatabase)
        async throws
    {
        let claims = sequences.claims(of: deliveryIds)
        guard !claims.isEmpty else { return }
        try await db.update("sequence_claims").set("lease_until", to: leaseUntil).where("id", .in, claims.sorted()).run()
    }

    /// When the next delivery in a sequence falls due, at `nowMs`: its notification's release, where deliveries of it
    /// remain to be claimed or a claim of them ran out of lease.
    static func nextSequenceDue(at nowMs: Int64, in db: any SQLDatabase) async throws -> Date? {
        let row = try await db.raw(
            """
            SELECT MIN(deliver_at) AS due FROM notifications WHERE id IN (
                SELECT s.notification_id FROM delivery_sequences s
                WHERE EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = s.notification_id AND d.id > s.claimed_through)
                UNION SELECT notification_id FROM sequence_claims WHERE lease_until < \(bind: nowMs))
            """
        ).first()
        return try row?.optionalDate("due")
    }
}
