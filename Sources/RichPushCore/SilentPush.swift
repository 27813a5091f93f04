#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        let encoder = JSONEncoder()
        // Sorted keys make the bytes deterministic, so a resend after a crash is byte-identical.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        switch style {
        case .silent:
            return try! encoder.encode(APNsBody(aps: SilentAPS(), push: self))
        case .alert:
            return try! encoder.encode(APNsBody(aps: AlertAPS(alert: .init(body: richMessage)), push: self))
        }
    }

    private struct APNsBody<APS: Encodable>: Encodable {
        var aps: APS
        var richId: String
        var richMessage: String
        var richType: String

        init(aps: APS, push: SilentPush) {
            self.aps = aps
            richId = String(push.richId)
            richMessage = push.richMessage
            richType = push.richType.rawValue
        }
    }

    private struct SilentAPS: Encodable {
        let contentAvailable = 1
        let sound = ""

        enum CodingKeys: String, CodingKey {
            case contentAvailable = "content-available"
            case sound
        }
    }

    private struct AlertAPS: Encodable {
        struct Alert: Encodable {
            var body: String
        }
        var alert: Alert
        let mutableContent = 1
        let category = "richPush"

        enum CodingKeys: String, CodingKey {
            case alert
            case mutableContent = "mutable-content"
            case category
        }
    }
}
