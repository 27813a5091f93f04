public import RichPushCore
import SQLKit

/// A delivery's key in the outbox: its notification and its id.
typealias DeliveryKey = (notificationId: Int64, deliveryId: Int64)

/// A predicate that a delivery is one of a set, each named by its notification and its id: the outbox's key on
/// PostgreSQL is `(notification_id, id)`, so each notification's ids are looked up under it, as an ``SQLIdSet``.
/// SQLite keys its rows by id alone and is given the ids only.
///
/// Deliveries of many notifications (one-device notices, each its own) are looked up one by one instead, each row
/// locked and then reached where it lies: PostgreSQL planned a condition for each of 1,000 notifications in 12 ms
/// and ran it in 34, and joined a list of 1,000 keys by reading the whole outbox (42 ms among 200,000), where the
/// lookups take 9 ms. The lock keeps a row from moving (another statement updating it) before the update reaches it.
struct SQLDeliveryKeys: SQLExpression {
    /// The most notifications given a condition each.
    static let conditionsAtMost = 32

    private let byNotification: [(notificationId: Int64, ids: [Int64])]

    init(_ deliveries: some Sequence<DeliveryKey>) {
        var ids: [Int64: [Int64]] = [:]
        for delivery in deliveries { ids[delivery.notificationId, default: []].append(delivery.deliveryId) }
        byNotification = ids.sorted { $0.key < $1.key }.map { (notificationId: $0.key, ids: $0.value) }
    }

    func serialize(to serializer: inout SQLSerializer) {
        guard serializer.dialect.keysOutboxByNotification else {
            return SQLIdSet("id", in: byNotification.flatMap(\.ids)).serialize(to: &serializer)
        }
        guard byNotification.count <= Self.conditionsAtMost else { return serializeLookups(to: &serializer) }
        let terms = byNotification.map { notification in
            SQLGroupExpression(
                SQLBinaryExpression(
                    SQLBinaryExpression(SQLIdentifier("notification_id"), .equal, SQLLiteral.numeric(String(notification.notificationId))),
                    .and, SQLIdSet("id", in: notification.ids)))
        }
        // No delivery matches nothing.
        guard !terms.isEmpty else { return SQLLiteral.boolean(false).serialize(to: &serializer) }
        SQLGroupExpression(SQLList(terms, separator: SQLRaw(" OR "))).serialize(to: &serializer)
    }

    /// `ctid = ANY(ARRAY(…))` of each key's row, found through the key and locked.
    private func serializeLookups(to serializer: inout SQLSerializer) {
        let keys = byNotification.flatMap { notification in notification.ids.map { (notification.notificationId, $0) } }
        func array(_ values: [Int64]) -> String { "ARRAY[\(values.map(String.init).joined(separator: ","))]::bigint[]" }
        serializer.write(
            "ctid = ANY(ARRAY(SELECT (SELECT ctid FROM deliveries AS d WHERE d.notification_id = k.n AND d.id = k.i FOR UPDATE)"
                + " FROM unnest(\(array(keys.map(\.0))), \(array(keys.map(\.1)))) AS k(n, i)))")
    }
}

extension DeliveryAttempt {
    /// The delivery's key in the outbox.
    var key: DeliveryKey { (notificationId, deliveryId) }
}
