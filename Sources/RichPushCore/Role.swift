/// What a user may do: `admin` everything, `marketer` campaigns and images, `member` its own devices and feed.
public enum Role: String, Codable, Sendable, CaseIterable {
    case admin
    case marketer
    case member

    /// Admins and marketers address any audience and read every campaign.
    public var mayRunCampaigns: Bool { self != .member }

    /// Whether this role may do everything `other` may: what a token can be given, and what it keeps when its
    /// owner's role is lowered.
    public func includes(_ other: Role) -> Bool { rank >= other.rank }

    /// Every role this one includes, itself among them.
    public var included: [Role] { Self.allCases.filter(includes) }

    /// The lesser of this role and `other`.
    public func limited(to other: Role) -> Role { includes(other) ? other : self }

    private var rank: Int {
        switch self {
        case .member: 0
        case .marketer: 1
        case .admin: 2
        }
    }
}
