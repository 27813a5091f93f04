import Foundation
public import RichPushCore
import SQLKit

extension SQLNotificationRepository {
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
