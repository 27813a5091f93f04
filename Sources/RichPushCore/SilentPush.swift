import Foundation

/// The small push every addressed device receives: only the id and type of the rich payload, and its message.
///
/// The keys are those the classic rich-push tutorial's iOS client reads (`richId`, `richType`, `richMessage`);
/// the id travels as a string.
public struct SilentPush: Sendable, Equatable {
    public var richId: Int64
    public var richType: RichType
    public var richMessage: String
    public var style: PushStyle

    public init(richId: Int64, richType: RichType, richMessage: String, style: PushStyle = .silent) {
        self.richId = richId
        self.richType = richType
        self.richMessage = richMessage
        self.style = style
    }

    /// APNs allows 4096 bytes of payload.
    public static let apnsPayloadLimit = 4096

    /// The custom keys, all strings, as FCM's `data` map and the direct stream's `rich` event carry them.
    public var data: [String: String] {
        ["richId": String(richId), "richType": richType.rawValue, "richMessage": richMessage]
    }

    /// The APNs JSON body: `content-available` for a silent push, a `mutable-content` alert otherwise.
    public func apnsPayload() -> Data {
        let aps: [String: Any]
        switch style {
        case .silent:
            aps = ["content-available": 1, "sound": ""]
        case .alert:
            aps = ["alert": ["body": richMessage], "mutable-content": 1, "category": "richPush"]
        }
        var body: [String: Any] = data
        body["aps"] = aps
        // Sorted keys make the bytes deterministic, so a resend after a crash is byte-identical.
        return try! JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
