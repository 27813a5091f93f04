/// The notification service an installation is reached through.
public enum Platform: String, Codable, Sendable, CaseIterable {
    case apns
    case fcm
    case wns
    /// Browsers and UnifiedPush distributors, through their push service (RFC 8030).
    case webpush
    case direct
}

extension Platform {
    /// The platforms the tutorial's registration (`PUT /api/register/{id}`) takes: a device's own hub. The direct
    /// stream and Web Push register through `/api/installations`.
    public static let registeredByTheTutorial: [Platform] = [.apns, .fcm, .wns]

    /// `apns, fcm, wns`, for the sentence that refuses another name.
    public static func names(_ platforms: [Platform]) -> String {
        platforms.map(\.rawValue).joined(separator: ", ")
    }

    /// Whether `pushChannel` can be an address on this platform: APNs device tokens are hexadecimal (and become part
    /// of the request path); a Web Push channel is checked as a subscription where the gateway reads it; the other
    /// platforms' channels are opaque text.
    public func accepts(pushChannel: String) -> Bool {
        switch self {
        case .apns:
            (1...400).contains(pushChannel.utf8.count)
                && pushChannel.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }
        case .fcm, .wns, .webpush, .direct:
            true
        }
    }

    /// Whether a push channel is a secret the hub issued to one device (an APNs or FCM token, a WNS channel URI, a Web
    /// Push endpoint):
    /// whoever registers it holds that device, so it may move to another user's installation, as when a phone
    /// changes hands. A direct channel is free text anyone can type, and never moves across users.
    public var channelIsIssuedByHub: Bool {
        switch self {
        case .apns, .fcm, .wns, .webpush: true
        case .direct: false
        }
    }
}
