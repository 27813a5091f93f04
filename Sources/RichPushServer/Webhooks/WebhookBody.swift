import Foundation
import RichPushCore

/// The body a webhook message carries: one event as `{"type", "timestamp", "data"}`, several as
/// `{"type": "batch", "events": [...]}`.
///
/// Written by hand around each event's stored `data`, which is JSON already: decoding and encoding it again would
/// reorder nothing but cost a parse per event.
enum WebhookBody {
    static func encode(_ events: [WebhookEvent]) -> [UInt8] {
        let items = events.map(event)
        let text = items.count == 1 ? items[0] : #"{"type":"batch","events":[\#(items.joined(separator: ","))]}"#
        return Array(text.utf8)
    }

    private static func event(_ event: WebhookEvent) -> String {
        #"{"type":"\#(event.type.rawValue)","timestamp":"\#(Timestamp.format(event.occurredAt))","data":\#(event.data)}"#
    }
}
