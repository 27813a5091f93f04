/// Tags follow Azure Notification Hubs: presence-only strings of at most 120 characters from `[A-Za-z0-9_@#.:-]`.
public enum Tag {
    public static let maximumLength = 120

    /// Whether `tag` is one a hub accepts.
    public static func isValid(_ tag: some StringProtocol) -> Bool {
        !tag.isEmpty && tag.utf8.count <= maximumLength && tag.utf8.allSatisfy(isTagByte)
    }

    static func isTagByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: "#"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Prefixes of the tags the gateway sets on installations; a device claiming one could receive another user's
    /// pushes, or be counted in an audience it is not in.
    public static let reservedPrefixes = ["username:", "installation:", "platform:", "language:", "timezone:", appVersionPrefix]

    /// The prefix of the tag naming an installation's app version.
    public static let appVersionPrefix = "appversion:"

    /// The reserved prefix `tag` starts with, compared without regard to case: `Username:bob` reads as `username:bob`
    /// to a person and to any tag comparison that ignores case.
    public static func reservedPrefix(of tag: some StringProtocol) -> String? {
        reservedPrefixes.first { prefix in
            tag.utf8.count >= prefix.utf8.count && zip(tag.utf8, prefix.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
        }
    }

    /// Bytes of the tags an expression may name: a hub's, and `/` and `+` for the gateway's time-zone tags
    /// (`timezone:America/New_York`, `timezone:Etc/GMT+5`), which no remote hub is asked to evaluate.
    static func isExpressionByte(_ byte: UInt8) -> Bool {
        isTagByte(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "+")
    }

    /// Whether `tag` may be set by the gateway: an expression may name it.
    public static func isGatewayTag(_ tag: some StringProtocol) -> Bool {
        !tag.isEmpty && tag.utf8.count <= maximumLength && tag.utf8.allSatisfy(isExpressionByte)
    }

    /// The tags the gateway derives from an installation's fields: its language (lower-cased, and its primary
    /// subtag), its time zone and its app version, each when it makes a tag.
    public static func deviceFields(language: String?, timeZone: String?, appVersion: String?) -> [String] {
        var tags: [String] = []
        if let language {
            let folded = language.lowercased()
            tags.append("language:" + folded)
            if let primary = folded.split(separator: "-").first, primary.count < folded.count { tags.append("language:" + primary) }
        }
        if let timeZone { tags.append("timezone:" + timeZone) }
        if let appVersion { tags.append(appVersionPrefix + appVersion) }
        return tags.filter(isGatewayTag)
    }

    /// The tag every installation of `username` carries.
    public static func user(_ username: String) -> String { "username:\(username)" }
    /// The tag naming one installation.
    public static func installation(_ id: String) -> String { "installation:\(id)" }
    /// The tag naming an installation's platform.
    public static func platform(_ platform: Platform) -> String { "platform:\(platform.rawValue)" }
}
