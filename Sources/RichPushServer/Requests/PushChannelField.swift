import Foundation

/// An installation's `pushChannel`: text, or for Web Push the browser's `PushSubscription` as a JSON object, kept as
/// its JSON text (a string holding that JSON is taken too), so every platform's channel is one string in the store.
struct PushChannelField: Decodable, Sendable {
    var text: String

    init(text: String) {
        self.text = text
    }

    /// `PushSubscription.toJSON()`: browsers add `expirationTime`, which the gateway accepts and does not keep.
    private struct Subscription: Codable {
        struct Keys: Codable {
            var p256dh: String
            var auth: String
        }
        var endpoint: String
        var expirationTime: Double?
        var keys: Keys
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
            return
        }
        // The installation's check reads it again as a subscription and keeps the canonical form.
        text = String(decoding: try JSONEncoder().encode(try container.decode(Subscription.self)), as: UTF8.self)
    }
}
