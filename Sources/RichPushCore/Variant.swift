/// One arm of an A/B test: its share of the audience and the whole visible content its users get in place of the
/// notification's own.
public struct Variant: Sendable, Hashable, Codable {
    public var name: String
    /// Percent of the users, 0 to 100; a notification's variants add up to 100.
    public var weight: Int
    public var message: String
    /// Title, sound, badge, category, thread, data and localizations, the notification's own where the variant gave
    /// none.
    public var content: PushContent

    public init(name: String, weight: Int, message: String, content: PushContent) {
        self.name = name
        self.weight = weight
        self.message = message
        self.content = content
    }

    public static let counts = 2...5

    /// Whether `name` may name a variant: 1–32 of letters, digits, space, `_`, `.` and `-`, starting with a letter or
    /// a digit and not ending with a space, so it reads the same in the console, the funnel and a spreadsheet of the
    /// export.
    public static func isName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetterOrDigit(first), name.utf8.last != UInt8(ascii: " "), name.utf8.count <= 32 else {
            return false
        }
        return name.utf8.allSatisfy {
            isLetterOrDigit($0) || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The variant `username` gets of notification `notificationId`: the same for all of a user's devices and on
    /// every process, spread by weight. A 64-bit FNV-1a hash of `id:username` picks one of 100 slots, and the
    /// variants take the slots in order, as many as their weights; the notification's id in the hash keeps a user
    /// from landing in the first variant of every test.
    public static func assigned(to username: String, of notificationId: Int64, among variants: [Variant]) -> Variant? {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(notificationId):\(username)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let slot = Int(hash % 100)
        var end = 0
        for variant in variants {
            end += variant.weight
            if slot < end { return variant }
        }
        return variants.last
    }
}
