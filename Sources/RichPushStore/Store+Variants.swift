import Foundation
public import RichPushCore
import SQLKit

extension Store {
    /// Gives every recipient of a new notification its variant, on its feed entry and its deliveries.
    static func assignVariants(_ variants: [Variant], notificationId id: Int64, in db: any SQLDatabase) async throws {
        guard !variants.isEmpty else { return }
        // The feed entries name every recipient, the owners of the addressed installations among them.
        let recipients = try await db.select().column("username").from("feed_entries").where("notification_id", .equal, id)
            .orderBy("username").all().map { try $0.string("username") }
        var byVariant: [String: [String]] = [:]
        for username in recipients {
            guard let variant = Variant.assigned(to: username, of: id, among: variants) else { continue }
            byVariant[variant.name, default: []].append(username)
        }
        for (name, usernames) in byVariant {
            for chunk in usernames.chunked(insertChunk) {
                try await db.update("feed_entries").set("variant", to: name).where("notification_id", .equal, id)
                    .where("username", .in, Array(chunk)).run()
                try await db.update("deliveries").set("variant", to: name).where("notification_id", .equal, id)
                    .where("owner", .in, Array(chunk)).run()
            }
        }
    }

    /// Each variant's funnel, in the order the notification lists them.
    public func variantFunnels(notificationId id: Int64, variants: [Variant]) async throws -> [VariantFunnel] {
        guard !variants.isEmpty else { return [] }
        return try await engine.read { db in
            var funnels = Dictionary(uniqueKeysWithValues: variants.map { ($0.name, VariantFunnel(name: $0.name)) })
            func count(_ rows: [any SQLRow], into keyPath: WritableKeyPath<VariantFunnel, Int>) throws {
                for row in rows {
                    guard let name = try row.optionalString("variant") else { continue }
                    funnels[name]?[keyPath: keyPath] += try row.int("n")
                }
            }
            func grouped(_ table: String, _ filter: (SQLSelectBuilder) -> SQLSelectBuilder) async throws -> [any SQLRow] {
                try await filter(
                    db.select().column("variant").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(table)
                        .where("notification_id", .equal, id)
                ).groupBy("variant").all()
            }
            try count(try await grouped("deliveries") { $0 }, into: \.targeted)
            try count(try await grouped("deliveries") { $0.where("state", .equal, DeliveryState.sent.rawValue) }, into: \.sent)
            try count(try await grouped("feed_entries") { $0.where("fetched_at", .isNot, SQLLiteral.null) }, into: \.fetched)
            try count(
                try await grouped("feed_entries") { $0.where("user_action_state", .equal, UserActionState.activated.rawValue) }, into: \.opened)
            try count(
                try await grouped("feed_entries") { $0.where("user_action_state", .equal, UserActionState.dismissed.rawValue) },
                into: \.dismissed)
            let displayed = try await db.select().column(SQLColumn("variant", table: "deliveries"), as: "variant")
                .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("receipts")
                .join(
                    "deliveries", method: SQLJoinMethod.inner,
                    on: SQLBinaryExpression(
                        SQLBinaryExpression(
                            SQLColumn("notification_id", table: "deliveries"), .equal, SQLColumn("notification_id", table: "receipts")),
                        .and,
                        SQLBinaryExpression(
                            SQLColumn("installation_id", table: "deliveries"), .equal, SQLColumn("installation_id", table: "receipts")))
                )
                .where(SQLColumn("notification_id", table: "receipts"), .equal, SQLBind(id))
                .where(SQLColumn("event", table: "receipts"), .equal, SQLBind(ReceiptEvent.displayed.rawValue))
                .groupBy(SQLColumn("variant", table: "deliveries")).all()
            try count(displayed, into: \.displayed)
            return variants.compactMap { funnels[$0.name] }
        }
    }

    /// The JSON a notification's variants are stored as; nil when it has none.
    static func variantsJSON(_ variants: [Variant]) throws -> String? {
        guard !variants.isEmpty else { return nil }
        return String(decoding: try JSONEncoder.sortedKeys.encode(variants), as: UTF8.self)
    }

    static func variants(_ json: String?) throws -> [Variant] {
        guard let json else { return [] }
        return try JSONDecoder().decode([Variant].self, from: Data(json.utf8))
    }
}
