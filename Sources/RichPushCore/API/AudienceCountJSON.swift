/// `GET /api/audiences/count`: how many devices and people a tag expression reaches now.
public struct AudienceCountJSON: Codable, Sendable, Equatable {
    /// The expression as the gateway understood it, fully parenthesised where precedence matters.
    public var expression: String
    public var installations: Int
    public var recipients: Int
    /// The installations by platform, keyed by the platform's name.
    public var platforms: [String: Int]

    public init(expression: String, installations: Int, recipients: Int, platforms: [String: Int]) {
        self.expression = expression
        self.installations = installations
        self.recipients = recipients
        self.platforms = platforms
    }
}
