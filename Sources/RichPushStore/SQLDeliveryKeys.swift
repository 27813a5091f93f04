import RichPushCore
import SQLKit

/// A predicate that a delivery is one of a set, each named by its notification and its id: the outbox's key on
/// PostgreSQL is `(notification_id, id)`, so each notification's ids are looked up under it, as an ``SQLIdSet``.
/// SQLite keys its rows by id alone and is given the ids only.
struct SQLDeliveryKeys: SQLExpression {
    private let byNotification: [(notificationId: Int64, ids: [Int64])]

    init(_ deliveries: some Sequence<(notificationId: Int64, deliveryId: Int64)>) {
        var ids: [Int64: [Int64]] = [:]
        for delivery in deliveries { ids[delivery.notificationId, default: []].append(delivery.deliveryId) }
        byNotification = ids.sorted { $0.key < $1.key }.map { (notificationId: $0.key, ids: $0.value) }
    }

    func serialize(to serializer: inout SQLSerializer) {
        guard serializer.dialect.name != "sqlite" else {
            return SQLIdSet("id", in: byNotification.flatMap(\.ids)).serialize(to: &serializer)
        }
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
}

extension DeliveryJob {
    /// The delivery's key in the outbox.
    var key: (notificationId: Int64, deliveryId: Int64) { (notificationId, deliveryId) }
}

extension Store.ClaimedDelivery {
    /// The delivery's key in the outbox.
    var key: (notificationId: Int64, deliveryId: Int64) { (notificationId, deliveryId) }
}
