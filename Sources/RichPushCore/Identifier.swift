/// Names of users and installations end up inside tags (`username:alice`), so they use a tag-safe alphabet.
public enum Identifier {
    public static let maximumLength = 64

    /// Whether `name` may be a username or an installation id: 1–64 of `[A-Za-z0-9_.@-]`.
    public static func isValid(_ name: some StringProtocol) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumLength
            && name.utf8.allSatisfy { Tag.isTagByte($0) && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "#") }
    }
}
